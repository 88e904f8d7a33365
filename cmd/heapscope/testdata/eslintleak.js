// Lints DIR/src in rounds through eslint's API with a plugin rule that
// keeps every node it visits in a module-level array (the leak), and
// writes DIR/1, 2 and 3.heapsnapshot after 2, 5 and 8 rounds.
const v8 = require('v8');
const { ESLint } = require(process.env.SUBJECTS + '/eslint');
const kept = [];
const plugin = { rules: { keep: { create() { return { 'Identifier, Literal, CallExpression'(node) { kept.push(node); } }; } } } };
const dir = process.argv[2];
async function round() {
  const eslint = new ESLint({ cwd: dir, overrideConfigFile: true,
    overrideConfig: [{ files: ['src/**/*.js'], plugins: { leak: plugin }, languageOptions: { sourceType: 'commonjs' },
      rules: { 'leak/keep': 'warn', eqeqeq: 'warn', 'prefer-const': 'warn' } }] });
  await eslint.lintFiles(['src']);
}
(async () => {
  for (const [name, n] of [['1', 2], ['2', 3], ['3', 3]]) {
    for (let i = 0; i < n; i++) await round();
    v8.writeHeapSnapshot(dir + '/' + name + '.heapsnapshot');
  }
})();
