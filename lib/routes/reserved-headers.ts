/**
 * Headers a route-backed tool's arguments may not set and the `routes`
 * option may forward only for identity: the request's framing, and identity,
 * which is the endpoint's decision (README, routes as tools).
 */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set(['host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'authorization', 'cookie', 'proxy-authorization'])
