// zod 4 probes `new Function` to speed up parsing; the renderer's CSP forbids eval (and the
// probe shows up as a CSP violation), so it runs without that here. Imported first by main.tsx.
import { z } from 'zod';

z.config({ jitless: true });
