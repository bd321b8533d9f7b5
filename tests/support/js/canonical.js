// Reference canonical form for tests/test_canonical.py: reads JSON Lines, prints for each line the canonical text
// (JSON.stringify with sorted keys) as a JSON string literal, so lone surrogates survive the trip back to Python.
'use strict';
const fs = require('fs');

function sortDeep(v) {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (v && typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v).sort()) o[k] = sortDeep(v[k]);
    return o;
  }
  return v;
}

const out = [];
for (const line of fs.readFileSync(process.argv[2], 'utf8').split('\n')) {
  if (line) out.push(JSON.stringify(JSON.stringify(sortDeep(JSON.parse(line)))));
}
process.stdout.write(out.join('\n') + '\n');
