// A lint server's loop through eslint's API: it lints the edited
// buffers of DIR/src with lintText, and the whole tree with lintFiles,
// then sleeps; it keeps every call's results in a module-level Map that
// nothing trims (the leak). Its heap snapshots, DIR/1, 2 and 3
// .heapsnapshot after 3, 6 and 6 more rounds, are taken while the loop
// awaits its sleep, as a snapshot of a running server is: the sleep's
// Timeout and Promise then hold the loop's state, and the Map.
const v8 = require('v8');
const fs = require('fs');
const path = require('path');
const { ESLint } = require(process.env.SUBJECTS + '/eslint');
const dir = process.argv[2];
const eslint = new ESLint({ cwd: dir, overrideConfigFile: true,
  overrideConfig: [{ files: ['src/**/*.js'], languageOptions: { sourceType: 'commonjs' },
    rules: { eqeqeq: 'warn', 'prefer-const': 'warn', 'no-unused-vars': 'warn' } }] });
const lastResults = new Map();
let call = 0;
async function round() {
  for (const f of fs.readdirSync(path.join(dir, 'src'))) {
    const p = path.join(dir, 'src', f);
    const text = fs.readFileSync(p, 'utf8') + `\nconst edit${call} = ${call};\n`;
    call++;
    lastResults.set(p + '#' + call, await eslint.lintText(text, { filePath: p }));
  }
  lastResults.set('all#' + call, await eslint.lintFiles(['src']));
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
(async () => {
  for (const [name, n] of [['1', 3], ['2', 6], ['3', 6]]) {
    for (let i = 0; i < n; i++) await round();
    setTimeout(v8.writeHeapSnapshot, 1, path.join(dir, name + '.heapsnapshot')); // holds none of the loop's state
    await sleep(50);
  }
})();
