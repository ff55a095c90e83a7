#!/usr/bin/env bash
# Checks that every #include follows the layer order (docs/ARCHITECTURE.md, "Layers"):
# a file may include headers of its own folder's layer and of the layers below it,
# never of a layer above or beside it. Lists each include that breaks the order and
# exits 1; `tools/check_layers.sh DIR` checks a copy of the tree at DIR instead.
set -uo pipefail
root=${1:-"$(dirname "$0")/.."}
cd "$root" || exit 2

# folder: the folders its files may include from, besides its own. The longest folder
# that holds a file decides. Public headers (weft/...) come from include/ and are open
# to everyone.
read -r -d '' table <<'EOF'
include/weft:
base:
transport: base
rendezvous: base
p2p: base transport
collectives/reduce: base
collectives: base transport p2p
runtime: base transport rendezvous p2p collectives
cuda/runtime: base collectives/reduce cuda
cuda: base transport rendezvous p2p collectives runtime
mpi: base transport rendezvous p2p collectives runtime cuda
tools: base transport rendezvous p2p collectives runtime cuda mpi
tests: base transport rendezvous p2p collectives runtime cuda mpi tools
EOF

declare -A allowed
layers=()
while IFS=: read -r folder below; do
  allowed[$folder]="$folder include/weft $below"
  layers+=("$folder")
done <<<"$table"

# The layer of a path: the longest folder of the table that holds it.
layer_of() {
  local path=$1 best=""
  for folder in "${layers[@]}"; do
    case "$path" in
      "$folder"/*) [ ${#folder} -gt ${#best} ] && best=$folder ;;
    esac
  done
  echo "$best"
}

violations=0
checked=0
while IFS= read -r file; do
  from=$(layer_of "$file")
  [ -z "$from" ] && continue
  checked=$((checked + 1))
  while IFS= read -r line; do
    target=$(sed -E 's/^[0-9]+:#include ["<]([^">]+)[">].*/\1/' <<<"$line")
    [ "${target#weft/}" != "$target" ] && target="include/$target"
    to=$(layer_of "$target")
    [ -z "$to" ] && continue  # a system or third-party header
    ok=0
    for permitted in ${allowed[$from]}; do
      case "$to" in
        "$permitted" | "$permitted"/*) ok=1 ;;
      esac
    done
    if [ $ok -eq 0 ]; then
      echo "check_layers: $file:${line%%:*} includes $target ($to is not below $from)"
      violations=$((violations + 1))
    fi
  done < <(grep -nE '^#include ["<][a-z_]+/' "$file")
done < <(find include base transport rendezvous p2p collectives runtime cuda mpi tools tests \
  -type f \( -name '*.h' -o -name '*.cc' -o -name '*.cu' -o -name '*.c' \) 2>/dev/null | sort)

if [ $violations -ne 0 ]; then
  echo "check_layers: $violations includes against the layer order"
  exit 1
fi
echo "check_layers: $checked files include only their own layer and the ones below"
