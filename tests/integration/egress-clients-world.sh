#!/bin/sh
# Run by egress-clients.sh in the world of egress-net.sh: real clients
# fetch from registries the test serves on pkg.test (the server namespace)
# through the allowlist proxy. Writes NAME=OUTPUT lines to $1.
set -u
results=$1
T=$SBX_TOP_SRCDIR/tests/integration
PY=/usr/bin/python3
# not under /tmp, which the sandbox replaces with its own
w=$(mktemp -d "$SBX_TOP_BUILDDIR/tests/egress-clients.XXXXXX")
chmod 755 "$w"
record() { name=$1; shift; printf '%s=%s\n' "$name" "$("$@" 2>&1 | head -c 2000 | tail -3 | tr '\n' ' ')" >>"$results"; }

# --- the registries --------------------------------------------------------
R=$w/root
mkdir -p "$R/simple/demo" "$R/demo-pkg/-" "$R/index/de/mo" "$R/crates/demo/1.0.0"
head -c 3000000 /dev/urandom >"$R/big.bin"
# PyPI's simple index (PEP 503) and a wheel
$PY - "$R/simple/demo" <<'EOT'
import hashlib, sys, zipfile
d = sys.argv[1]
whl = d + "/demo-1.0-py3-none-any.whl"
with zipfile.ZipFile(whl, "w") as z:
    z.writestr("demo/__init__.py", "")
    z.writestr("demo-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n")
    z.writestr("demo-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr("demo-1.0.dist-info/RECORD", "")
h = hashlib.sha256(open(whl, "rb").read()).hexdigest()
open(d + "/index.html", "w").write(
    '<html><body><a href="demo-1.0-py3-none-any.whl#sha256=%s">demo-1.0-py3-none-any.whl</a></body></html>' % h)
EOT
# npm: a packument and its tarball
mkdir -p "$w/npm/package"
printf '{"name":"demo-pkg","version":"1.0.0"}\n' >"$w/npm/package/package.json"
tar -C "$w/npm" -czf "$R/demo-pkg/-/demo-pkg-1.0.0.tgz" package
sha1=$(sha1sum "$R/demo-pkg/-/demo-pkg-1.0.0.tgz" | cut -d' ' -f1)
printf '{"name":"demo-pkg","dist-tags":{"latest":"1.0.0"},"versions":{"1.0.0":{"name":"demo-pkg","version":"1.0.0","dist":{"tarball":"http://pkg.test/demo-pkg/-/demo-pkg-1.0.0.tgz","shasum":"%s"}}}}\n' \
    "$sha1" >"$R/demo-pkg/index.json"
# cargo: a sparse registry (index, config.json) and a .crate
mkdir -p "$w/crate/demo-1.0.0/src"
printf '[package]\nname = "demo"\nversion = "1.0.0"\nedition = "2018"\n' >"$w/crate/demo-1.0.0/Cargo.toml"
: >"$w/crate/demo-1.0.0/src/lib.rs"
tar -C "$w/crate" -czf "$R/crates/demo/1.0.0/download" demo-1.0.0
cksum=$(sha256sum "$R/crates/demo/1.0.0/download" | cut -d' ' -f1)
printf '{"dl":"http://pkg.test/crates/{crate}/{version}/download"}\n' >"$R/index/config.json"
printf '{"name":"demo","vers":"1.0.0","deps":[],"cksum":"%s","features":{},"yanked":false}\n' \
    "$cksum" >"$R/index/de/mo/demo"
# git: a repository over dumb HTTP
git init -q "$w/src-repo"
git -C "$w/src-repo" -c user.name=t -c user.email=t@t commit -q --allow-empty -m "from pkg.test"
git clone -q --bare "$w/src-repo" "$R/repo.git"
git -C "$R/repo.git" update-server-info
chmod -R a+rX "$w"

export EGRESS_HTTP_ROOT=$R
. "$T/egress-net.sh"

# --- the project each client runs in ---------------------------------------------
P=$w/proj
mkdir -p "$P/.cargo" "$P/src"
# a work tree of its own: else ${PROJECT} is the checkout this test runs
# in, and the profile below lies inside what it makes writable (a warning)
git init -q "$P"
printf '[package]\nname = "proj"\nversion = "0.1.0"\nedition = "2018"\n[dependencies]\ndemo = { version = "1", registry = "local" }\n' >"$P/Cargo.toml"
: >"$P/src/lib.rs"
printf '[registries.local]\nindex = "sparse+http://pkg.test/index/"\n' >"$P/.cargo/config.toml"
printf '[profile]\ninclude = default\n[network]\nallow = pkg.test\n' >"$w/p.ini"
chmod -R a+rwX "$w"
cd "$P"
sbx() { $SBX_AS "$SBX" run -p "$w/p.ini" -- env HOME="$P" "$@"; }

record curl_big    sbx sh -c 'curl -sS http://pkg.test/big.bin | sha256sum | cut -c1-16'
record curl_big_want sh -c "sha256sum $R/big.bin | cut -c1-16"
record pip         sbx $PY -m pip download --no-deps --disable-pip-version-check --no-cache-dir \
    --index-url http://pkg.test/simple/ --trusted-host pkg.test -d "$P/pip-out" demo==1.0
record pip_file    ls "$P/pip-out"
record npm         sbx npm install --no-audit --no-fund --cache "$P/npm-cache" \
    --registry http://pkg.test/ demo-pkg
record npm_file    cat "$P/node_modules/demo-pkg/package.json"
# cargo 1.68 made sparse registries stable; Debian's older cargo has
# them behind -Z sparse-registry, which its test channel switch unlocks
zflag=
cargo -Z help >/dev/null 2>&1 || true
if ! cargo --version | awk '{ split($2, v, "."); exit !(v[1] == 1 && v[2] < 68) }'; then :; else
    zflag="-Z sparse-registry"
fi
# rustup's proxy (root's cargo here may be one) finds its toolchains by $HOME
rustup_home=${RUSTUP_HOME:-$HOME/.rustup}
record cargo       sbx env CARGO_HOME="$P/cargo-home" RUSTUP_HOME="$rustup_home" __CARGO_TEST_CHANNEL_OVERRIDE_DO_NOT_USE_THIS=nightly \
    cargo fetch $zflag
record cargo_file  sh -c "ls $P/cargo-home/registry/cache/*/"
record git         sbx git clone -q http://pkg.test/repo.git "$P/cloned"
record git_log     git -C "$P/cloned" log --format=%s
# the same clients, refused: a name not listed
record git_evil    sbx git clone -q http://evil.test/repo.git "$P/evil"
record pip_evil    sbx $PY -m pip download --no-deps --disable-pip-version-check --no-cache-dir \
    --retries 0 --timeout 5 --index-url http://evil.test/simple/ --trusted-host evil.test -d "$P/pip-evil" demo==1.0
cd /
rm -rf "$w"
