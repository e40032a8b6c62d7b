/**
 * The routes already declared when the plugin is registered. Its `onRoute`
 * hook never sees them, and Fastify offers no public way to read a route's
 * config afterwards (`findRoute` and `printRoutes` leave it out), so their
 * methods and paths, read from the router's tree, are all the plugin can name
 * when a route marked `config.mcp` may have been missed (lib/routes/route-tools.ts).
 */
import type { FastifyInstance } from 'fastify'

/**
 * One line of `printRoutes()`, the router's radix tree: the indent, the node's
 * segment (a path is its ancestors' segments joined), its methods if a route
 * ends there. (With `commonPrefix: false` a wildcard loses its prefix.) The
 * box-drawing characters (│ ├── └──) are escapes: one non-ASCII character
 * would have Node decode and parse the whole shipped bundle as a two-byte
 * string, slower on every start (scripts/build.mjs checks the output).
 */
const TREE_LINE = /^((?:\u2502 {3}| {4})*)(?:\u251C\u2500\u2500 |\u2514\u2500\u2500 )(.*?)(?: \(([A-Z, -]+)\))?$/

/** A GET route's automatic HEAD twin is not a route the user declared. */
const TWIN_METHOD = 'HEAD'

/** Each route declared so far in the whole app, as `"GET /books/:id"` (several methods joined by commas). */
export function routesDeclaredSoFar (fastify: FastifyInstance): string[] {
  const tree = fastify.printRoutes()
  const paths: string[] = []
  const routes: string[] = []
  for (const line of tree.split('\n')) {
    const match = TREE_LINE.exec(line)
    if (match === null) continue
    const depth = (match[1] as string).length / 4
    const path = (depth === 0 ? '' : paths[depth - 1] ?? '') + (match[2] as string)
    paths[depth] = path
    paths.length = depth + 1
    if (match[3] === undefined) continue
    const all = match[3].split(', ')
    const methods = all.length > 1 ? all.filter((method) => method !== TWIN_METHOD) : all
    routes.push(`${methods.join(',')} ${path}`)
  }
  return routes
}
