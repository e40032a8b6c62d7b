/**
 * Whether the running Fastify is one this plugin was built for: what
 * fastify-plugin's `fastify: '5.x'` had Fastify check with `semver` at
 * registration, answered the same way without it. Fastify's check of a
 * plugin's range is the first `semver` range match of a process, and
 * parsing that range (building and running its regular expressions) cost
 * more of a cold start than anything else registration does
 * (bench/cold-phases.ts, issue 35).
 *
 * The same rule as Fastify's `checkVersion` (fastify/lib/plugin-utils.js)
 * for `5.x`: a 5.y.z release; in a release-candidate phase (a `-rc`, `-pre`
 * or `-alpha` version) any 5.y.z prerelease too (the range is then matched
 * with prereleases) and any version of a later major, so a plugin for the
 * prior major can be tried with the candidate.
 */
const SUPPORTED_MAJOR = 5
/** Fastify's own test for a release candidate. */
const CANDIDATE = /-(?:rc|pre|alpha).+$/u
/** A version as semver reads it strictly: optional `v`, major.minor.patch, optional prerelease and build metadata. */
const VERSION = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/

export function supportedFastifyVersion (version: string): boolean {
  const match = VERSION.exec(version.trim())
  if (match === null) return false
  const major = Number(match[1])
  if (CANDIDATE.test(version)) return major >= SUPPORTED_MAJOR
  // not a candidate: a release, as a range without prereleases matches
  return match[4] === undefined && major === SUPPORTED_MAJOR
}

/** The range named in the error, as fastify-plugin's metadata gave it before. */
export const SUPPORTED_FASTIFY_RANGE = `${SUPPORTED_MAJOR}.x`
