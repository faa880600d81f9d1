#!/usr/bin/env bash
# Fetches the demo images camera.png (512x512 gray) and astronaut.png (512x512 RGB) from Debian's
# python3-skimage package (scikit-image's sample data; see data/README.md for their licences).
# Debian's archive is used rather than a web URL so the files come through apt's signed,
# checksummed channel and the build machine needs no other network access.
#
#   tools/fetch_demo_images.sh <outdir>
#
# Skips the download when both files already exist in <outdir>. Needs apt-get and dpkg-deb.
set -euo pipefail

PACKAGE=python3-skimage
IMAGES=(camera.png astronaut.png)

die() { echo "fetch_demo_images: error: $*" >&2; exit 1; }

[[ $# -eq 1 ]] || { echo "usage: $0 <outdir>" >&2; exit 2; }
outdir=$1

have_all=1
for f in "${IMAGES[@]}"; do [[ -s "$outdir/$f" ]] || have_all=0; done
if [[ $have_all -eq 1 ]]; then
  echo "fetch_demo_images: ${IMAGES[*]} already in $outdir; nothing to do"
  exit 0
fi

command -v apt-get >/dev/null || die "apt-get not found: this script needs a Debian/Ubuntu system"
command -v dpkg-deb >/dev/null || die "dpkg-deb not found: this script needs a Debian/Ubuntu system"
mkdir -p "$outdir" || die "cannot create output directory '$outdir'"

work=$(mktemp -d) || die "cannot create a temporary directory"
trap 'rm -rf "$work"' EXIT
# As root, apt downloads as the unprivileged _apt user; let it write here (avoids a warning).
if [[ $EUID -eq 0 ]] && id _apt >/dev/null 2>&1; then chown _apt "$work" || true; fi

# apt-get download writes into the current directory. Refresh the package lists only if the
# first attempt fails (stale lists name .deb versions the mirror no longer has).
if ! (cd "$work" && apt-get download "$PACKAGE"); then
  echo "fetch_demo_images: download failed; running apt-get update and retrying" >&2
  apt-get update || die "apt-get update failed (are you root, and is the network reachable?)"
  (cd "$work" && apt-get download "$PACKAGE") || die "apt-get download $PACKAGE failed"
fi

debs=("$work"/"$PACKAGE"_*.deb)
[[ -f "${debs[0]}" ]] || die "apt-get download produced no $PACKAGE .deb"
dpkg-deb -x "${debs[0]}" "$work/root" || die "cannot extract ${debs[0]}"

for f in "${IMAGES[@]}"; do
  # Debian 12 (bookworm): usr/lib/python3/dist-packages/skimage/data/<f>
  src=$(find "$work/root" -path "*/skimage/data/$f" -type f | head -n 1)
  [[ -n "$src" ]] || die "$f not found inside ${debs[0]##*/} (did the package layout change?)"
  cp "$src" "$outdir/$f" || die "cannot copy $f to $outdir"
done
echo "fetch_demo_images: wrote ${IMAGES[*]} to $outdir (from ${debs[0]##*/})"
