/**
 * scripts/redundant-names.mjs, which the build runs on esbuild's output: it
 * blanks out the `__name` calls of `keepNames` that restate a name the value
 * has anyway, keeps every other, and moves no line or column (the source maps
 * stay exact). Each case is run before and after in a fresh context, and the
 * names it reports must be the same.
 */
import t from 'tap'
import { runInNewContext } from 'node:vm'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { REPO_ROOT } from '../helpers/paths.js'

interface RedundantNamesModule { dropRedundantNames: (source: string) => string }

// a variable specifier: the script is plain JavaScript run by the build, with no declarations
const { dropRedundantNames } = await import(pathToFileURL(join(REPO_ROOT, 'scripts', 'redundant-names.mjs')).href) as RedundantNamesModule

const HELPER = 'var __defProp = Object.defineProperty; var __name = (target, value) => __defProp(target, "name", { value, configurable: true });\n'

/** The names `expression` reports after `source` ran. */
function namesAfter (source: string, expression: string): unknown {
  return runInNewContext(`${HELPER}${source}\n;${expression}`)
}

const cases: Array<{ label: string, source: string, names: string, dropped: boolean }> = [
  { label: 'a function declaration', source: 'function check () { return 1 }\n__name(check, "check");', names: 'check.name', dropped: true },
  { label: 'a renamed function declaration', source: 'function check2 () { return 1 }\n__name(check2, "check");', names: 'check2.name', dropped: false },
  { label: 'a class by its var', source: 'var Store = class {\n  static {\n    __name(this, "Store");\n  }\n};', names: 'Store.name', dropped: true },
  { label: 'a renamed class', source: 'var Store2 = class {\n  static {\n    __name(this, "Store");\n  }\n};', names: 'Store2.name', dropped: false },
  { label: 'a named class', source: 'var Store = class Inner {\n  static {\n    __name(this, "Inner");\n  }\n};', names: 'Store.name', dropped: true },
  { label: 'an arrow in a var', source: 'var plugin = /* @__PURE__ */ __name(async (a) => {\n  return a\n}, "plugin");', names: 'plugin.name', dropped: true },
  { label: 'an arrow in a renamed var', source: 'var plugin2 = /* @__PURE__ */ __name((a) => a, "plugin");', names: 'plugin2.name', dropped: false },
  { label: 'an arrow as a property', source: 'var hooks = { onCall: /* @__PURE__ */ __name((a) => a, "onCall") };', names: 'hooks.onCall.name', dropped: true },
  { label: 'an arrow under a quoted key', source: 'var table = { "tools/call": /* @__PURE__ */ __name((a) => a, "tools/call") };', names: 'table["tools/call"].name', dropped: false },
  { label: 'a named function expression', source: 'var hooks = [/* @__PURE__ */ __name(async function ready () {}, "ready")];', names: 'hooks[0].name', dropped: true },
  { label: 'a named function expression by another name', source: 'var ready = /* @__PURE__ */ __name(function inner () {}, "ready");', names: 'ready.name', dropped: false },
  { label: 'an arrow passed as an argument', source: 'var list = [1].map(/* @__PURE__ */ __name((a) => () => a, "wrap"));', names: 'list[0].name', dropped: false }
]

for (const { label, source, names, dropped } of cases) {
  t.test(label, async (t) => {
    const output = dropRedundantNames(source)
    t.equal(output.includes('__name('), !dropped, dropped ? 'the call is gone' : 'the call stays')
    t.equal(output.length, source.length, 'same length')
    t.same([...output.matchAll(/\n/g)].map((m) => m.index), [...source.matchAll(/\n/g)].map((m) => m.index), 'the same lines')
    t.equal(namesAfter(output, names), namesAfter(source, names), 'the same name as with the call')
  })
}

t.test('a declaration in another block is not taken for the one named', async (t) => {
  const source = 'function outer () { function check () {} return check }\n__name(check, "check");\nvar check = () => 1;'
  t.equal(dropRedundantNames(source), source, 'unchanged')
})
