/**
 * esbuild's `keepNames` (scripts/build.mjs) wraps every function and class of
 * the bundle in a `__name(value, "name")` call, so a function that bundling
 * renamed (two modules' `check` become `check` and `check2`) still reports
 * its name from lib/. Most were never renamed: their `__name` restates the
 * name the language already gives them, yet each call redefines the `name`
 * property, which gives the function its own hidden class. About 1,600 of
 * them ran on every import of the package (~9 ms of main-thread CPU,
 * bench/cold-phases.ts), and the ones inside functions on every call.
 *
 * `dropRedundantNames` blanks out (with spaces, so every line and column the
 * source map points at stays where it was) exactly the calls whose name the
 * value already has without them:
 *
 * - `__name(f, "f");` beside `function f` or `class f` in the same block;
 * - `static { __name(this, "C"); }` in a class named `C`, or an anonymous
 *   class assigned to `var C`;
 * - `__name(<arrow or anonymous function>, "x")` as the value of `var x` or
 *   of the property `x:` (the language names the function `x` there), and
 *   `__name(function x () {}, "x")` anywhere.
 *
 * Every other call stays: the names are those `keepNames` gives.
 */
import ts from 'typescript'

/** The name a function or class declaration, or a named function or class expression, has by itself. */
function ownName (node) {
  return node.name !== undefined && ts.isIdentifier(node.name) ? node.name.text : undefined
}

/** The name the language gives an anonymous function or class at `node`'s place (ECMAScript's NamedEvaluation). */
function contextualName (node) {
  const parent = node.parent
  if (ts.isVariableDeclaration(parent) && parent.initializer === node && ts.isIdentifier(parent.name)) return parent.name.text
  if (ts.isPropertyAssignment(parent) && parent.initializer === node && ts.isIdentifier(parent.name)) return parent.name.text
  return undefined
}

/** The name `value`, the first argument of a `__name` call, has without that call, when that is certain. */
function impliedName (value) {
  // value.parent is the call: the language names the value after the call's place
  if (ts.isArrowFunction(value)) return contextualName(value.parent)
  if (ts.isFunctionExpression(value) || ts.isClassExpression(value)) return ownName(value) ?? contextualName(value.parent)
  return undefined
}

/** A `__name(value, "name")` call, as [value, name]. */
function nameCall (node) {
  if (!ts.isCallExpression(node) || !ts.isIdentifier(node.expression) || node.expression.text !== '__name') return undefined
  const [value, name] = node.arguments
  if (node.arguments.length !== 2 || name === undefined || !ts.isStringLiteral(name)) return undefined
  return [value, name.text]
}

/** Whether the statements of `block` declare a function or class named `name`. */
function declaresNamed (block, name) {
  return block.statements.some((statement) => (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && ownName(statement) === name)
}

/** The name of the class `member` belongs to, its own or the `var` it is assigned to. */
function className (member) {
  const owner = member.parent
  return ownName(owner) ?? (ts.isClassExpression(owner) ? contextualName(owner) : undefined)
}

/** `source` with the redundant `__name` calls replaced by spaces (line breaks kept). */
export function dropRedundantNames (source) {
  const file = ts.createSourceFile('bundle.js', source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS)
  const blanks = []
  const visit = (node) => {
    const call = nameCall(node)
    if (call !== undefined) {
      const [value, name] = call
      const statement = node.parent
      if (ts.isExpressionStatement(statement) && ts.isIdentifier(value) && value.text === name && (ts.isBlock(statement.parent) || ts.isSourceFile(statement.parent)) && declaresNamed(statement.parent, name)) {
        blanks.push([statement.getStart(file), statement.end])
      } else if (ts.isExpressionStatement(statement) && value.kind === ts.SyntaxKind.ThisKeyword && ts.isBlock(statement.parent) && statement.parent.statements.length === 1 &&
        ts.isClassStaticBlockDeclaration(statement.parent.parent) && className(statement.parent.parent) === name) {
        blanks.push([statement.parent.parent.getStart(file), statement.parent.parent.end])
      } else if (impliedName(value) === name && (ts.isArrowFunction(value) || ts.isFunctionExpression(value))) {
        // `__name(` and `, "name")`: the value stays where it is
        blanks.push([node.getStart(file), value.getStart(file)], [value.end, node.end])
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
  if (blanks.length === 0) return source
  const chars = source.split('')
  for (const [start, end] of blanks) {
    for (let i = start; i < end; i++) if (chars[i] !== '\n') chars[i] = ' '
  }
  return chars.join('')
}
