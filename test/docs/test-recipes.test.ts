/**
 * The test recipes of docs/testing.md run with their runners (issue 34,
 * item 7): the `node:test` file under `node --import tsx --test`, the tap
 * file as tap runs a file (a process of its own). Each must pass its three
 * tests as written, and fail when its expected sum is changed, so a passing
 * run means its assertions ran.
 */
import { execPath } from 'node:process'
import t from 'tap'
import { runSnippet, typeScriptBlocks, withLocalImports } from '../helpers/doc-snippet.js'

const PAGE = 'docs/testing.md'
const NODE_TEST = [execPath, '--import', 'tsx', '--test']
const TEST_NAMES = ['add answers the sum', 'slow streams progress and a log message before its answer', 'a listen stream hears a tool added at runtime']
const SUM = "text: '5'"

function recipe (marker: string): string {
  const [block] = typeScriptBlocks(PAGE, marker)
  if (block === undefined) throw new Error(`${PAGE} has no TypeScript block with ${marker}`)
  return withLocalImports(block.code)
}

const broken = (code: string): string => code.replace(SUM, "text: '6'")

t.test('the node:test recipe passes under node --test, and fails when broken', async (t) => {
  const code = recipe("from 'node:test'")
  t.match(code, SUM)
  const { stdout } = await runSnippet(code, { runner: NODE_TEST })
  for (const name of TEST_NAMES) t.match(stdout, `ok ${TEST_NAMES.indexOf(name) + 1} - ${name}`, name)
  t.match(stdout, /# pass 3/)
  t.match(stdout, /# fail 0/)
  await t.rejects(runSnippet(broken(code), { runner: NODE_TEST }), 'a wrong sum fails the run')
})

t.test('the tap recipe passes as a tap test file, and fails when broken', async (t) => {
  const code = recipe("from 'tap'")
  t.match(code, SUM)
  const { stdout } = await runSnippet(code)
  for (const name of TEST_NAMES) t.match(stdout, `ok ${TEST_NAMES.indexOf(name) + 1} - ${name}`, name)
  t.notMatch(stdout, /not ok/)
  await t.rejects(runSnippet(broken(code)), 'a wrong sum fails the run')
})
