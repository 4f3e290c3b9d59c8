#!/usr/bin/env bash
# Debian trees holding a real PostgreSQL of each major version the host has
# not, for the version matrix (scripts/matrix.sh).  Run as root.
#
#   scripts/chroot.sh tree MAJOR      builds the tree for MAJOR unless it is ready
#   scripts/chroot.sh run MAJOR CMD   runs the shell command CMD inside it, as root,
#                                     with /proc, /dev/pts and /dev/shm mounted for
#                                     the length of CMD (unmounted on any exit)
#   scripts/chroot.sh path MAJOR      prints where the tree is
#
# 13 is Debian 11 "bullseye"; 17 is Debian 13 "trixie"; 18 is unstable "sid"; 19 is unstable with
# postgresql-19 and its libpq from the experimental suite.  The 18 and 19
# trees are copies of one debootstrap'd sid tree made before any PostgreSQL is
# installed, so each holds one PostgreSQL only.  Trees live in $CUCKOO_CHROOTS
# (default /var/cache/cuckoo-chroots), outside the repository, and a ready tree
# (stamp file .cuckoo-ready) is reused; scripts/matrix.sh empties the
# directory first when CI=true, so CI always tests fresh trees.
set -euo pipefail
ROOT="${CUCKOO_CHROOTS:-/var/cache/cuckoo-chroots}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# sid's Release file may be past its Valid-Until date in the archive we reach
APT=(apt-get -q -y -o Acquire::Check-Valid-Until=false -o APT::Install-Recommends=false)
# what every tree needs to build and test cuckoo; the 17 tree also builds
# the Debian package (test/package.sh)
BASE_PKGS=(make gcc libc6-dev libxxhash-dev ca-certificates)
DEB_PKGS=(build-essential debhelper dpkg-dev postgresql-server-dev-all)

usage() { sed -n '5,11p' "$0" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1 major=$2
case $major in
  13) suite=bullseye ;;
  17) suite=trixie ;;
  18|19) suite=sid ;;
  *) echo "chroot.sh: no Debian tree for PostgreSQL $major (13, 17, 18 or 19)" >&2; exit 2 ;;
esac
tree="$ROOT/pg$major"

# debootstrap SUITE DIR: a minimal tree whose apt never installs recommends
debootstrap_tree() {
  local suite=$1 dir=$2
  rm -rf "$dir" "$dir.tmp"
  debootstrap --variant=minbase "$suite" "$dir.tmp" "$MIRROR" >"$dir.debootstrap.log" 2>&1 || {
    tail -n 20 "$dir.debootstrap.log" >&2; return 1; }
  printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\nAcquire::Check-Valid-Until "false";\n' \
    >"$dir.tmp/etc/apt/apt.conf.d/90cuckoo"
  # no documentation or manual pages: smaller, faster unpacking
  printf 'path-exclude /usr/share/doc/*\npath-include /usr/share/doc/*/copyright\npath-exclude /usr/share/man/*\npath-exclude /usr/share/locale/*\n' \
    >"$dir.tmp/etc/dpkg/dpkg.cfg.d/90cuckoo-nodoc"
  mv "$dir.tmp" "$dir"
}

# the debootstrap'd sid tree shared (by copying) by 18 and 19; one builder at
# a time
sid_base() {
  local base="$ROOT/sid-base"
  exec 9>"$ROOT/sid-base.lock"
  flock 9
  [ -f "$base/.cuckoo-ready" ] || { debootstrap_tree sid "$base" && touch "$base/.cuckoo-ready"; }
  flock -u 9
}

mounted=()
umount_all() {
  local i
  # processes still running in the tree (a server left by a failed test)
  # would keep /proc busy
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$tree" ] && kill -9 "${p#/proc/}" 2>/dev/null
  done
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}"
  done
  mounted=()
}
mount_all() {
  trap umount_all EXIT
  trap 'exit 130' INT TERM
  mkdir -p "$tree/proc" "$tree/dev/pts" "$tree/dev/shm"
  mount -t proc proc "$tree/proc" && mounted+=("$tree/proc")
  mount -t devpts -o newinstance,ptmxmode=0666 devpts "$tree/dev/pts" && mounted+=("$tree/dev/pts")
  # PostgreSQL's dynamic shared memory (parallel query) lives in /dev/shm
  mount -t tmpfs -o mode=1777 tmpfs "$tree/dev/shm" && mounted+=("$tree/dev/shm")
  cp /etc/resolv.conf "$tree/etc/resolv.conf" 2>/dev/null || true
}

in_tree() { chroot "$tree" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
  DEBIAN_FRONTEND=noninteractive "$@"; }

build_tree() {
  local pkgs=("${BASE_PKGS[@]}")
  mkdir -p "$ROOT"
  if [ "$suite" = sid ]; then
    sid_base
    rm -rf "$tree" "$tree.tmp"
    cp -a "$ROOT/sid-base" "$tree.tmp"
    rm -f "$tree.tmp/.cuckoo-ready"
    mv "$tree.tmp" "$tree"
  else
    debootstrap_tree "$suite" "$tree"
  fi
  if [ "$major" = 19 ]; then
    echo "deb $MIRROR experimental main" >"$tree/etc/apt/sources.list.d/experimental.list"
    pkgs+=(postgresql-19/experimental postgresql-server-dev-19/experimental
           postgresql-client-19/experimental libpq-dev/experimental libpq5/experimental)
  else
    pkgs+=("postgresql-$major" "postgresql-server-dev-$major")
  fi
  [ "$major" = 17 ] && pkgs+=("${DEB_PKGS[@]}")
  mount_all
  # no cluster is created by the package: tests make their own
  mkdir -p "$tree/etc/postgresql-common/createcluster.d"
  echo "create_main_cluster = false" >"$tree/etc/postgresql-common/createcluster.d/cuckoo.conf"
  in_tree "${APT[@]}" update >/dev/null
  in_tree "${APT[@]}" install "${pkgs[@]}" >"$tree.install.log" 2>&1 || {
    tail -n 30 "$tree.install.log" >&2; return 1; }
  in_tree "${APT[@]}" clean
  umount_all
  trap - EXIT
  test -x "$tree/usr/lib/postgresql/$major/bin/pg_config"
  touch "$tree/.cuckoo-ready"
}

case $cmd in
  path) echo "$tree" ;;
  tree)
    if [ -f "$tree/.cuckoo-ready" ]; then echo "reusing $tree"; exit 0; fi
    build_tree
    echo "built $tree ($(du -sm "$tree" | cut -f1) MB)"
    ;;
  run)
    [ $# -ge 3 ] || usage
    [ -f "$tree/.cuckoo-ready" ] || { echo "chroot.sh: $tree is not built (chroot.sh tree $major)" >&2; exit 1; }
    mount_all
    rc=0
    in_tree bash -c "$3" || rc=$?
    exit $rc
    ;;
  *) usage ;;
esac
