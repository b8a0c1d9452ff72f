#!/usr/bin/env bash
# The core imports only the standard library, Synchronization and Observation. Only the adapters
# that exist for a terminal or a file may import the C library, and nothing imports Foundation.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
while IFS= read -r line; do
  file=${line%%:*}
  case "$file" in
    Sources/TaskProgress/Adapters/Terminal/* | Sources/TaskProgress/Adapters/LogFile/*)
      case "$line" in
        *Foundation*) echo "error: $line: adapters use the C library, not Foundation"; status=1 ;;
      esac
      ;;
    *)
      echo "error: $line: the core may import only Synchronization and Observation"
      status=1
      ;;
  esac
done < <(grep -rnE '^\s*(public |internal |@_exported )?import\s+(Foundation|FoundationEssentials|Glibc|Darwin|Musl|Dispatch)\b' Sources || true)

if [ "$status" -eq 0 ]; then
  echo "Layers: the core imports no I/O module; adapters import only the C library."
fi
exit "$status"
