# The test command is a guest (sourced by scripts/test.sh and test/package.sh,
# never run): the tests install cuckoo into the system PostgreSQL trees ("make
# install", the Debian package) and remove it again ("make uninstall", apt-get
# purge).  guest_save records what the machine had before, guest_restore puts
# exactly that back (also after a failure or an interruption: call it from
# an EXIT trap), guest_check says whether it is so.
#
#   guest_save DIR      the cuckoo files under the PostgreSQL and documentation
#                       trees (list, SHA-256 and an archive with owners and
#                       modes) and the postgresql-*-cuckoo packages installed
#                       (rebuilt into .debs with dpkg-repack, installed first if
#                       missing); prints what it found
#   guest_restore DIR   purges the cuckoo packages that were not installed,
#                       reinstalls the saved ones whose version changed or
#                       that are gone, removes the cuckoo files and directories
#                       that were not there, unpacks the saved files
#   guest_check DIR     prints nothing when the files (with their contents) and
#                       the packages are what guest_save found, else the
#                       differences

# the places a cuckoo install writes to: make install (lib, share/extension,
# lib/bitcode), the package (also /usr/share/doc/postgresql-N-cuckoo)
guest_roots=(/usr/lib/postgresql /usr/share/postgresql /usr/share/doc /etc/postgresql)

guest_files() {
  find "${guest_roots[@]}" -path '*cuckoo*' \( -type f -o -type l \) 2>/dev/null | LC_ALL=C sort
}
guest_dirs() {
  find "${guest_roots[@]}" -path '*cuckoo*' -type d 2>/dev/null | LC_ALL=C sort
}
# "package version" of every installed postgresql-*-cuckoo
guest_packages() {
  dpkg-query -W -f='${Package} ${Version} ${db:Status-Abbrev}\n' 'postgresql-*-cuckoo' 2>/dev/null |
    awk '$3 ~ /^ii/ {print $1, $2}' | LC_ALL=C sort
}
guest_sums() {
  local f
  while read -r f; do
    if [ -L "$f" ]; then echo "link:$(readlink "$f")  $f"; else sha256sum "$f"; fi
  done
}

guest_save() {
  local dir=$1 p
  mkdir -p "$dir/debs"
  guest_files >"$dir/files"
  guest_dirs >"$dir/dirs"
  guest_sums <"$dir/files" >"$dir/sums"
  tar -cpf "$dir/files.tar" -P -T "$dir/files" 2>"$dir/tar.err" || { cat "$dir/tar.err" >&2; return 1; }
  guest_packages >"$dir/packages"
  if [ -s "$dir/packages" ]; then
    command -v dpkg-repack >/dev/null || {
      echo "# installing dpkg-repack, to save the installed cuckoo packages"
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends dpkg-repack >/dev/null 2>&1 ||
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends dpkg-repack >/dev/null; } ||
        { echo "guest: cannot install dpkg-repack to save $(cut -d' ' -f1 "$dir/packages" | xargs)" >&2; return 1; }
    }
    while read -r p _; do
      (cd "$dir/debs" && dpkg-repack "$p" >/dev/null 2>&1) || { echo "guest: dpkg-repack $p failed" >&2; return 1; }
    done <"$dir/packages"
  fi
  echo "# saved $(wc -l <"$dir/files") installed cuckoo files$( [ -s "$dir/packages" ] && echo " and the packages $(cut -d' ' -f1 "$dir/packages" | xargs)"), to restore at the end ($dir)"
}

guest_restore() {
  local dir=$1 p v f now_pkgs
  [ -f "$dir/sums" ] || return 0
  # packages: what was not there goes, what was there comes back
  now_pkgs=$(guest_packages)
  while read -r p v; do
    [ -n "$p" ] || continue
    grep -qx "$p $v" "$dir/packages" && continue
    apt-get -o DPkg::Lock::Timeout=600 purge -y -q "$p" >/dev/null 2>&1 || dpkg --purge "$p" >/dev/null 2>&1
  done <<<"$now_pkgs"
  while read -r p v; do
    [ -n "$p" ] || continue
    grep -qx "$p $v" <<<"$(guest_packages)" && continue
    dpkg -i "$dir/debs/${p}_"*.deb >/dev/null 2>&1 || echo "guest: could not reinstall $p $v from $dir/debs" >&2
  done <"$dir/packages"
  # files and directories that were not there
  guest_files | LC_ALL=C comm -23 - "$dir/files" | while read -r f; do
    dpkg -S "$f" >/dev/null 2>&1 && continue       # a package's file: the package step decides
    rm -f "$f"
  done
  guest_dirs | LC_ALL=C comm -23 - "$dir/dirs" | LC_ALL=C sort -r | while read -r f; do
    rmdir "$f" 2>/dev/null
  done
  # and those that were, as they were
  [ -s "$dir/files" ] && tar -xpf "$dir/files.tar" -P 2>/dev/null
  return 0
}

guest_check() {
  local dir=$1
  diff <(guest_packages) "$dir/packages" | sed -n 's/^</  package now: /p; s/^>/  package before: /p'
  diff <(guest_files | guest_sums) "$dir/sums" | sed -n 's/^</  now: /p; s/^>/  before: /p'
}
