#!/usr/bin/env bash
# Installs the Debian packages m4bench needs when they are missing:
#   bubblewrap  the default agent sandbox
#   chromium    headless rendering check of the analysis report (tests)
# Runs apt-get only as root; otherwise says what to install.
set -euo pipefail
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "m4bench: please install these Debian packages: ${missing[*]} (sudo apt-get install ${missing[*]})" >&2
    exit 0
fi
echo "m4bench: installing ${missing[*]}" >&2
apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
