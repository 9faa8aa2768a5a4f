// Print a permalink that opens a trace file at a step: `npm run link -- FILE [STEP|end]`.
// BASE overrides the site address (default http://127.0.0.1:5173/, what `npm start` serves).
import { readFileSync } from 'node:fs';

const [file, step = 'end'] = process.argv.slice(2);
if (!file) {
  console.error('usage: npm run link -- FILE [STEP|end]');
  process.exit(2);
}
if (step !== 'end' && !/^\d+$/.test(step)) {
  console.error(`step must be a number or "end", not ${JSON.stringify(step)}`);
  process.exit(2);
}
const base = process.env.BASE ?? `http://127.0.0.1:${process.env.PORT ?? '5173'}/`;
const trace = readFileSync(file, 'utf8');
console.log(`${base}#trace=${encodeURIComponent(trace)}&step=${step}`);
