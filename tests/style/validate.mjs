// Validates a MapLibre style file with the style spec's validator; exits 1 listing the
// errors. Usage: node validate.mjs STYLE.json
import { readFileSync } from 'node:fs';
import { validateStyleMin } from '@maplibre/maplibre-gl-style-spec';

const style = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const errors = validateStyleMin(style);
for (const e of errors) console.error(e.message);
if (errors.length > 0) process.exit(1);
console.log('style valid');
