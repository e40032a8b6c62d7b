#!/usr/bin/env node
/**
 * The suite's readable output. As tap's reporter (.taprc `reporter`): one line
 * per test file (ok / not ok, its time and assertion count) and, for a file
 * that fails, each failing assertion with its subtest path and diagnostics;
 * the raw TAP is kept in `.tap/report.tap` (TAP_REPORT_FILE) for anything
 * else. `npx tap --reporter=tap` still prints the raw stream.
 *
 * As a program, `node scripts/tap-summary.mjs --totals [file]` prints
 * `N passed, N failed` (assertions) from a raw TAP file: .ci/run's last line.
 */
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { Transform } from 'node:stream'
import { fileURLToPath } from 'node:url'

export const DEFAULT_REPORT_FILE = '.tap/report.tap'

const POINT = /^(not )?ok\b\s*(\d+)?\s*(?:-\s*)?(.*)$/
const SUBTEST = /^# Subtest: ?(.*)$/
const TOTALS = /^# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?(?:, skip: (\d+))?(?:, todo: (\d+))?/
/** Diagnostics of a file's own point the reader does not need (how tap spawned it). */
const SPAWN_KEYS = /^(stdio|cwd|externalID|command|jobId|args):/
/** Lines shown at most per failing assertion: a huge diff stays in the raw file. */
const MAX_DETAIL_LINES = 60

const indentOf = (line) => line.length - line.trimStart().length

/** A test point's description and directive: `name # time=12ms`, `name # SKIP why`. */
function parsePoint (text) {
  const match = POINT.exec(text)
  if (match === null) return undefined
  const rest = match[3] ?? ''
  const hash = rest.search(/(?<!\\) # /)
  const name = (hash === -1 ? rest : rest.slice(0, hash)).replace(/\\#/g, '#').trim()
  const directive = hash === -1 ? '' : rest.slice(hash + 3)
  const time = /time=([\d.]+)(ms|s)\b/.exec(directive)
  return {
    ok: match[1] === undefined,
    name,
    skip: /^SKIP\b/i.test(directive),
    todo: /^TODO\b/i.test(directive),
    ms: time === null ? undefined : Number(time[1]) * (time[2] === 's' ? 1000 : 1)
  }
}

/**
 * Leaf assertions of a raw TAP text (a subtest's own closing point is not
 * one), as tap counts them: a skipped or todo assertion is neither passed nor failed.
 */
export function countAssertions (text) {
  const counts = { pass: 0, fail: 0, skip: 0, todo: 0 }
  const open = []
  let yamlIndent = -1
  for (const line of text.split('\n')) {
    const indent = indentOf(line)
    const body = line.trim()
    if (yamlIndent !== -1) {
      if (body === '...' && indent === yamlIndent) yamlIndent = -1
      continue
    }
    if (body === '---') { yamlIndent = indent; continue }
    if (SUBTEST.test(body)) { open.push(indent); continue }
    const point = parsePoint(body)
    if (point === undefined) continue
    if (open.length > 0 && open[open.length - 1] === indent) { open.pop(); continue }
    if (point.todo) counts.todo++
    else if (point.skip) counts.skip++
    else if (point.ok) counts.pass++
    else counts.fail++
  }
  return counts
}

/** tap's own totals (`# { total: 6, pass: 4, fail: 1, skip: 1 }`), when the run got that far. */
export function tapTotals (text) {
  let found
  for (const line of text.split('\n')) {
    const match = TOTALS.exec(line)
    if (match !== null) found = { total: Number(match[1]), pass: Number(match[2]), fail: Number(match[3] ?? 0), skip: Number(match[4] ?? 0), todo: Number(match[5] ?? 0) }
  }
  return found
}

/** `N passed, N failed` for a raw TAP text: tap's totals, else counted; a bail-out or a missing plan counts as a failure. */
export function totalsLine (text) {
  const counts = tapTotals(text) ?? countAssertions(text)
  let fail = counts.fail
  const complete = /^1\.\.\d+/m.test(text) && !/^Bail out!/m.test(text)
  if (fail === 0 && (!complete || /^not ok /m.test(text))) fail = 1
  return `${counts.pass} passed, ${fail} failed`
}

function seconds (ms) {
  return ms === undefined ? '     ?' : `${(ms / 1000).toFixed(1)}s`.padStart(6)
}

/** The failing assertions of one file's TAP body (its lines, indented under the file), ready to print. */
export function failureDetails (lines) {
  const out = []
  const path = []
  /** Open subtests: their indent and whether a failure inside was already shown. */
  const open = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    const indent = indentOf(line)
    const body = line.trim()
    const subtest = SUBTEST.exec(body)
    if (subtest !== null) {
      open.push({ indent, shown: false })
      path.push(subtest[1])
      continue
    }
    const point = parsePoint(body)
    if (point === undefined) continue
    // its diagnostics: the YAML block right after it
    const yaml = []
    if (lines[i + 1]?.trim() === '---') {
      const yamlIndent = indentOf(lines[i + 1])
      let j = i + 2
      for (; j < lines.length && !(lines[j].trim() === '...' && indentOf(lines[j]) === yamlIndent); j++) yaml.push(lines[j].slice(yamlIndent))
      i = j
    }
    const closes = open.length > 0 && open[open.length - 1].indent === indent
    const frame = closes ? open.pop() : undefined
    const names = closes ? path.splice(-1) : []
    if (point.ok || point.todo) continue
    // a subtest that failed through a failing assertion inside says nothing more
    if (frame?.shown === true) {
      if (open.length > 0) open[open.length - 1].shown = true
      continue
    }
    for (const f of open) f.shown = true
    const where = (closes ? [...path, ...names] : [...path, point.name]).filter((name) => name !== '')
    out.push(`    not ok ${where.join(' › ')}`)
    const shown = yaml.slice(0, MAX_DETAIL_LINES)
    for (const detail of shown) out.push(`        ${detail}`)
    if (yaml.length > shown.length) out.push(`        … ${yaml.length - shown.length} more lines in the raw TAP`)
  }
  return out
}

/** tap's reporter: a stream that takes the raw TAP and gives the summary. */
export default class TapSummary extends Transform {
  constructor (options = {}) {
    super()
    this.reportFile = resolve(options.reportFile ?? process.env.TAP_REPORT_FILE ?? DEFAULT_REPORT_FILE)
    mkdirSync(dirname(this.reportFile), { recursive: true })
    this.raw = createWriteStream(this.reportFile)
    this.partial = ''
    this.text = ''
    this.body = undefined
    this.fileYaml = undefined
    this.files = { ok: 0, fail: [] }
  }

  _transform (chunk, _encoding, callback) {
    const text = chunk.toString()
    this.raw.write(text)
    this.text += text
    const lines = (this.partial + text).split('\n')
    this.partial = lines.pop() ?? ''
    for (const line of lines) this.line(line)
    callback()
  }

  _flush (callback) {
    if (this.partial !== '') this.line(this.partial)
    const counts = tapTotals(this.text) ?? countAssertions(this.text)
    const time = /^# time=([\d.]+)ms/m.exec(this.text)
    this.out('')
    const files = this.files.ok + this.files.fail.length
    this.out(`${files} file${files === 1 ? '' : 's'}: ${this.files.ok} ok, ${this.files.fail.length} not ok` +
      ` · assertions: ${counts.pass} passed, ${counts.fail} failed, ${counts.skip} skipped, ${counts.todo} todo` +
      (time === null ? '' : ` · ${seconds(Number(time[1])).trim()}`))
    for (const name of this.files.fail) this.out(`not ok ${name}`)
    this.out(`raw TAP: ${this.reportFile}`)
    this.raw.end(() => callback())
  }

  out (line) {
    this.push(line + '\n')
  }

  line (line) {
    // the diagnostics of a file's own point (exit code, signal, timeout) after a failure
    if (this.fileYaml === 'next') this.fileYaml = line === '  ---' ? [] : undefined
    if (Array.isArray(this.fileYaml)) {
      if (line === '  ...') {
        for (const detail of this.fileYaml) this.out(`    ${detail}`)
        this.fileYaml = undefined
      } else if (line !== '  ---' && !/^\s*-/.test(line) && !SPAWN_KEYS.test(line.trim())) {
        this.fileYaml.push(line.slice(2))
      }
      return
    }
    const subtest = SUBTEST.exec(line)
    if (subtest !== null) { this.body = []; return }
    if (line.startsWith(' ') || line === '') {
      this.body?.push(line)
      return
    }
    if (line.startsWith('Bail out!')) { this.out(line); return }
    const point = parsePoint(line)
    if (point === undefined) return
    const body = this.body ?? []
    this.body = undefined
    const counts = countAssertions(body.map((l) => l.slice(4)).join('\n'))
    const assertions = `${counts.pass + counts.fail} assertion${counts.pass + counts.fail === 1 ? '' : 's'}` +
      (counts.skip > 0 ? `, ${counts.skip} skipped` : '') + (counts.todo > 0 ? `, ${counts.todo} todo` : '')
    if (point.ok) {
      this.files.ok++
      this.out(`ok     ${seconds(point.ms)}  ${point.name}  (${assertions}${point.skip ? ', skipped' : ''})`)
      return
    }
    this.files.fail.push(point.name)
    this.out(`not ok ${seconds(point.ms)}  ${point.name}  (${assertions}, ${counts.fail} failed)`)
    for (const detail of failureDetails(body.map((l) => l.slice(4)))) this.out(detail)
    this.fileYaml = 'next'
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [flag, file = DEFAULT_REPORT_FILE] = process.argv.slice(2)
  if (flag === '--totals') {
    // no raw TAP: tap never ran (a failure before it), which is one failure
    console.log(existsSync(file) ? totalsLine(readFileSync(file, 'utf8')) : '0 passed, 1 failed')
  } else if (flag === undefined && !process.stdin.isTTY) {
    // a filter, as tap runs a reporter it finds executable: raw TAP in, the summary out
    process.stdin.pipe(new TapSummary()).pipe(process.stdout)
  } else {
    console.error('usage: node scripts/tap-summary.mjs --totals [raw TAP file]  |  tap --reporter=tap | node scripts/tap-summary.mjs')
    process.exit(2)
  }
}
