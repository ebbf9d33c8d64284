// OCR languages: Tesseract's codes (eng, chi_sim, jpn, deu …), each one a model of role `ocr` in
// the catalogue (models/manifest.json, `tesseract-<code>`), found and sha256-checked like any
// model (TROVE_MODELS_DIR, packaged, the npm package installed with the app, the download cache)
// and pulled with `trove models pull tesseract-<code>`. English ships with the app.
import { invalidInput, TroveError } from '../errors.js';
import { findModel, type Manifest } from '../embed/manifest.js';
import { resolveModel, type ModelLocations } from '../embed/resolver.js';
import type { LanguageFile } from './tesseract.js';

export const DEFAULT_OCR_LANGUAGES: readonly string[] = ['eng'];

const CODE = /^[a-z]{3}(_[a-z]{3,4})?$/;

export function ocrModelId(code: string): string {
  return `tesseract-${code}`;
}

/** The OCR languages the catalogue knows. */
export function knownOcrLanguages(manifest: Manifest): string[] {
  return manifest.models.filter((m) => m.role === 'ocr').map((m) => m.id.replace(/^tesseract-/, ''));
}

/** Checked, de-duplicated language codes in the order given (the first is Tesseract's primary language). */
export function checkLanguages(codes: readonly string[] | undefined, manifest: Manifest): string[] {
  const list = [...new Set((codes?.length ? codes : DEFAULT_OCR_LANGUAGES).map((c) => c.trim()))];
  const known = knownOcrLanguages(manifest);
  for (const code of list) {
    if (!CODE.test(code) || !known.includes(code)) {
      throw invalidInput(`"${code}" is not an OCR language Trove knows (known: ${known.join(', ')})`);
    }
  }
  return list;
}

export interface ResolvedLanguage extends LanguageFile {
  sha256: string;
}

/**
 * The verified data file of each language. UNAVAILABLE, naming the command that fetches it, when
 * a language's data is not here; a corrupt file is refused the same way (resolver.ts).
 */
export async function resolveLanguages(codes: string[], manifest: Manifest, locations: ModelLocations): Promise<ResolvedLanguage[]> {
  const out: ResolvedLanguage[] = [];
  for (const code of codes) {
    const spec = findModel(manifest, ocrModelId(code), 'ocr');
    try {
      const r = await resolveModel(spec, locations);
      out.push({ code, file: r.weightsFile, sha256: r.weightsSha256 });
    } catch (err) {
      if (err instanceof TroveError && err.code === 'UNAVAILABLE') {
        // the resolver names the model ("model \"tesseract-deu\" is not available: …"): said once, as the language
        const why = err.message.replace(/^model "[^"]*" is not available: /, '');
        throw new TroveError('UNAVAILABLE', `OCR language "${code}" is not available: ${why}`, { ...err.details, language: code });
      }
      throw err;
    }
  }
  return out;
}
