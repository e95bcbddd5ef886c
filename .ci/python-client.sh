# Sourced by the scripts that run a CouchDB client's own test suite (.ci/aiocouch.sh, .ci/pycouchdb.sh).
#
# prepare_client DIR PACKAGE VERSION [PIP SPEC…]: installs PACKAGE==VERSION and the given test tools into
# DIR/venv and unpacks the package's source distribution (its tests) into DIR. A folder already prepared is
# used as it is.
prepare_client() {
  local dir="$1" package="$2" version="$3"
  shift 3
  [ -f "$dir/prepared" ] && return 0
  mkdir -p "$dir"
  python3 -m venv "$dir/venv"
  "$dir/venv/bin/pip" install -q "$package==$version" "$@"
  "$dir/venv/bin/pip" download -q --no-deps --no-binary :all: -d "$dir" "$package==$version"
  tar -xzf "$dir/$package-$version.tar.gz" -C "$dir"
  touch "$dir/prepared"
}
