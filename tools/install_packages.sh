#!/usr/bin/env bash
# Installs the Debian packages named on the command line that are missing, with
# apt-get (through sudo when not root). With all of them present it changes nothing and
# needs no network.
#
# usage: tools/install_packages.sh WHO PACKAGE...   (WHO starts the progress line)
set -euo pipefail
who=$1
shift

missing=()
for package in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  sudo=(sudo)
fi
echo "$who: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update -q
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q "${missing[@]}"
