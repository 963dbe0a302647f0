#!/usr/bin/env bash
# Fetches the corpus the fidelity figures of the README were measured on:
# real CRDs and example objects from public Apache-2.0 repositories, each
# file at the commit docs/corpus-sources.tsv names, byte for byte.
#
#   docs/fetch-corpus.sh DIR          # then: CRDKIT_CORPUS=DIR ./test.sh
#
# Needs git and network access to the repositories. One shallow fetch per
# repository and commit; nothing else is downloaded.
set -euo pipefail
dest=${1:?usage: docs/fetch-corpus.sh DIR}
sources=${CRDKIT_CORPUS_SOURCES:-"$(dirname "$0")/corpus-sources.tsv"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$dest"
n=0
while IFS=$'\t' read -r file repo path commit; do
  case "$file" in ''|'#'*) continue ;; esac
  key=$(printf '%s@%s' "$repo" "$commit" | tr -c 'A-Za-z0-9' '_')
  if [ ! -d "$work/$key" ]; then
    git init -q "$work/$key"
    git -C "$work/$key" fetch -q --depth 1 "$repo" "$commit"
  fi
  mkdir -p "$dest/$(dirname "$file")"
  git -C "$work/$key" show "$commit:$path" > "$dest/$file"
  n=$((n + 1))
done < "$sources"
echo "fetched $n files into $dest"
