// bmp-js ships no types: the one function image-decode.ts uses.
declare module 'bmp-js' {
  interface BmpImage {
    width: number;
    height: number;
    /** 4 bytes a pixel: A, B, G, R. */
    data: Uint8Array;
  }
  const bmp: { decode(buffer: Buffer): BmpImage };
  export default bmp;
}
