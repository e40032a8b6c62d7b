#!/usr/bin/env bash
# Publication to the npm registry, the one reviewed command (README "Releasing"):
#   scripts/release.sh --dry-run   the checked tarball (npm run pack:release), then
#                                  `npm publish --dry-run` on it; needs no login (CI runs it)
#   scripts/release.sh [--yes]     the same checks, then publishes that very tarball, with
#                                  public access and provenance (package.json publishConfig)
# A real publication refuses to start from an uncommitted tree, without a dated CHANGELOG.md
# section for the version, without a repository URL (provenance is checked against it), or
# when the version is already on the registry. Provenance needs a CI provider npm supports
# (GitHub Actions with `id-token: write`, or GitLab CI).
set -euo pipefail
cd "$(dirname "$0")/.."

dry_run=false
confirmed=false
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry_run=true ;;
    --yes) confirmed=true ;;
    *) echo "usage: scripts/release.sh [--dry-run] [--yes]" >&2; exit 2 ;;
  esac
done

name=$(node -p "require('./package.json').name")
version=$(node -p "require('./package.json').version")
repository=$(node -p "(require('./package.json').repository || {}).url || ''")
# "./": npm would read "release/x.tgz" as a GitHub repository (owner/name)
tarball="./release/${name}-${version}.tgz"

problems=()
if [ -d .git ] || git rev-parse --git-dir >/dev/null 2>&1; then
  [ -z "$(git status --porcelain)" ] || problems+=("the working tree has uncommitted changes")
else
  problems+=("not a git checkout: the release must be a committed, tagged tree")
fi
grep -Eq "^## \[${version//./\\.}\] - [0-9]{4}-[0-9]{2}-[0-9]{2}" CHANGELOG.md ||
  problems+=("CHANGELOG.md has no dated section \"## [${version}] - YYYY-MM-DD\"")
[ -n "$repository" ] || problems+=("package.json has no repository.url (npm checks provenance against it)")
if npm view "${name}@${version}" version 2>/dev/null | grep -q .; then
  problems+=("${name}@${version} is already on the registry")
fi
if [ ${#problems[@]} -gt 0 ]; then
  if $dry_run; then
    printf 'release (dry run): a real publication would stop here: %s\n' "${problems[@]}" >&2
  else
    printf 'release: %s\n' "${problems[@]}" >&2
    exit 1
  fi
fi

npm run pack:release
echo
echo "▶ npm publish --dry-run ${tarball}"
npm publish --dry-run "$tarball"
if $dry_run; then
  echo "release (dry run): ${tarball} is ready; nothing was published"
  exit 0
fi

if ! $confirmed; then
  [ -t 0 ] || { echo "release: not a terminal; pass --yes to publish ${name}@${version}" >&2; exit 1; }
  read -r -p "Publish ${name}@${version} from ${tarball} to the registry? [y/N] " answer
  [ "$answer" = y ] || [ "$answer" = Y ] || { echo "release: nothing published"; exit 1; }
fi
npm publish "$tarball"
echo "published ${name}@${version}; tag the commit: git tag v${version} && git push origin v${version}"
