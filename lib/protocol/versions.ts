/** Protocol versions this package speaks, newest first within each era. */

export const MODERN_VERSIONS = Object.freeze(['2026-07-28'] as const)
export const LEGACY_VERSIONS = Object.freeze(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const)

export type ModernVersion = typeof MODERN_VERSIONS[number]
export type LegacyVersion = typeof LEGACY_VERSIONS[number]

export const LATEST_MODERN_VERSION: ModernVersion = MODERN_VERSIONS[0]
export const LATEST_LEGACY_VERSION: LegacyVersion = LEGACY_VERSIONS[0]

const legacy: ReadonlySet<string> = new Set(LEGACY_VERSIONS)
const modern: ReadonlySet<string> = new Set(MODERN_VERSIONS)

export function isLegacyVersion (v: unknown): v is LegacyVersion {
  return typeof v === 'string' && legacy.has(v)
}

export function isModernVersion (v: unknown): v is ModernVersion {
  return typeof v === 'string' && modern.has(v)
}
