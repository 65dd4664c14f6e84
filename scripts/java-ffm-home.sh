#!/usr/bin/env bash
# Prints the home of a JDK that has the final Foreign Function and Memory API (JDK 22 or
# later), found by asking each candidate's `java -version`, never by a fixed path:
# $JAVA_FFM_HOME, $JAVA_HOME, the JDKs under /usr/lib/jvm, the alternatives of `java`, and
# the `java` on PATH. Exits 1 (printing nothing) when there is none.
set -euo pipefail

major_version() {
  # `openjdk version "25.0.3" 2026-04-21`, `java version "22"`, or 1.8-style "1.8.0_x".
  local line
  line=$("$1/bin/java" -version 2>&1 | head -1) || return 1
  line=${line#*version \"}
  line=${line%%\"*}
  case "$line" in
    1.*) line=${line#1.} ;;
  esac
  echo "${line%%[.+-]*}"
}

candidates=()
[ -n "${JAVA_FFM_HOME:-}" ] && candidates+=("$JAVA_FFM_HOME")
[ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
for home in /usr/lib/jvm/*; do
  [ -x "$home/bin/java" ] && candidates+=("$home")
done
if command -v update-alternatives >/dev/null 2>&1; then
  while read -r java; do
    candidates+=("$(dirname "$(dirname "$java")")")
  done < <(update-alternatives --list java 2>/dev/null || true)
fi
if command -v java >/dev/null 2>&1; then
  candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")")
fi

best=""
best_major=0
for home in "${candidates[@]}"; do
  [ -x "$home/bin/java" ] && [ -x "$home/bin/javac" ] || continue
  major=$(major_version "$home" 2>/dev/null) || continue
  [[ "$major" =~ ^[0-9]+$ ]] || continue
  if [ "$major" -ge 22 ] && [ "$major" -gt "$best_major" ]; then
    best=$home
    best_major=$major
  fi
done
[ -n "$best" ] || exit 1
echo "$best"
