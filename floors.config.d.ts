// Types of floors.config.js (plain JavaScript: the ESLint config imports it without a TypeScript loader).
export declare const ENGINE_FLOORS: readonly (readonly [name: string, rooms: readonly string[]])[];
export declare const FACES: Readonly<Record<string, readonly string[]>>;
export declare const FACE_PATHS: Readonly<Record<string, string>>;
