# Shared by scripts/run.sh and scripts/test.sh: build the tools the service
# needs and make sure Postgres and Temporal answer. Source it from the
# repository root.

ROOT=$(pwd)
DATA="$ROOT/.data"
TEMPORAL_BIN="$ROOT/bin/temporal"
TEMPORAL_CLI_VERSION=1.5.1
# Search attributes of crawl workflows (see workflows/crawl.go).
SEARCH_ATTRIBUTES=(CrawlId=Keyword CrawlTeamId=Keyword CrawlStatus=Keyword CrawlStartUrl=Keyword CrawlTotalPages=Int CrawlScheduleId=Keyword)

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# tcp_open HOST PORT: does something listen there?
tcp_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# host_port URL_OR_ADDR: prints "host port" of a postgres URL or host:port.
url_host_port() {
  local rest=${1#*://}
  rest=${rest#*@}
  rest=${rest%%/*}
  rest=${rest%%\?*}
  local host=${rest%:*} port=${rest##*:}
  [ "$host" = "$rest" ] && port=5432
  [ -z "$host" ] && host=127.0.0.1
  echo "$host $port"
}

# build_temporal: the Temporal CLI (dev server and UI) from its own Go
# module in tools/; Go's build cache makes rebuilds take seconds.
build_temporal() {
  if [ -x "$TEMPORAL_BIN" ] && [ "$TEMPORAL_BIN" -nt "$ROOT/tools/go.sum" ]; then
    return
  fi
  say "building the Temporal CLI $TEMPORAL_CLI_VERSION (first build takes a few minutes)"
  mkdir -p "$ROOT/bin"
  (cd "$ROOT/tools" && go build -ldflags "-s -w -X github.com/temporalio/cli/temporalcli.Version=$TEMPORAL_CLI_VERSION" \
    -o "$TEMPORAL_BIN" github.com/temporalio/cli/cmd/temporal) || die "could not build the Temporal CLI"
}

build_crawler() {
  say "building bin/crawler"
  mkdir -p "$ROOT/bin"
  go build -o "$ROOT/bin/crawler" ./cmd/crawler || die "could not build bin/crawler"
}

# ensure_postgres URL: use the server of URL when it answers; otherwise
# start a private cluster under .data/postgres (installing PostgreSQL with
# apt when missing). Sets PG_URL to the URL to use.
PG_PRIVATE_PORT=55432
PG_STARTED=""
ensure_postgres() {
  local url=$1 hp
  hp=$(url_host_port "$url")
  # shellcheck disable=SC2086
  if tcp_open $hp; then
    PG_URL=$url
    return
  fi
  say "no Postgres answers at ${hp/ /:}; starting a private cluster under .data/postgres"
  local bindir
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  if [ -z "$bindir" ]; then
    say "installing PostgreSQL with apt"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >&2 \
      || die "could not install PostgreSQL"
    bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  fi
  local pgdata="$DATA/postgres" as=()
  mkdir -p "$DATA"
  # Postgres refuses to run as root: run it as the postgres user then.
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir "$DATA" postgres
    as=(runuser -u postgres --)
    mkdir -p "$pgdata" && chown postgres "$pgdata" && chmod 700 "$pgdata"
  fi
  if [ ! -f "$pgdata/PG_VERSION" ]; then
    "${as[@]}" "$bindir/initdb" -D "$pgdata" -U postgres --auth=trust >"$DATA/initdb.log" 2>&1 \
      || die "initdb failed, see .data/initdb.log"
  fi
  "${as[@]}" "$bindir/pg_ctl" -D "$pgdata" -l "$pgdata/server.log" -w \
    -o "-p $PG_PRIVATE_PORT -c listen_addresses=127.0.0.1 -k /tmp" start >&2 \
    || die "could not start Postgres, see .data/postgres/server.log"
  PG_STARTED="${as[*]} $bindir/pg_ctl -D $pgdata -m fast stop"
  PG_URL="postgres://postgres@127.0.0.1:$PG_PRIVATE_PORT/${url##*/}"
}

stop_postgres() {
  if [ -n "$PG_STARTED" ]; then
    say "stopping the private Postgres cluster"
    $PG_STARTED >/dev/null 2>&1 || true
    PG_STARTED=""
  fi
}

# ensure_browser: Debian's Chromium and the Playwright driver that
# playwright-go needs (playwright-core pinned in tools/playwright, from the
# npm registry; nothing is downloaded from elsewhere). Exports
# CRAWLER_CHROMIUM_PATH and PLAYWRIGHT_DRIVER_PATH.
ensure_browser() {
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  local chromium=${CRAWLER_CHROMIUM_PATH:-/usr/lib/chromium/chromium}
  if [ ! -x "$chromium" ]; then
    say "installing Chromium with apt"
    $sudo apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >&2 \
      || die "could not install Chromium"
  fi
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    say "installing Node.js with apt"
    $sudo apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm >&2 \
      || die "could not install Node.js"
  fi
  local pkg="$ROOT/tools/playwright"
  if [ ! -f "$pkg/node_modules/playwright-core/cli.js" ]; then
    say "installing the Playwright driver (playwright-core) from the npm registry"
    (cd "$pkg" && npm ci --ignore-scripts --no-audit --no-fund >&2) || die "could not install playwright-core"
  fi
  local driver="$ROOT/bin/playwright-driver"
  mkdir -p "$driver"
  ln -sf "$(command -v node)" "$driver/node"
  ln -sfn "$pkg/node_modules/playwright-core" "$driver/package"
  export CRAWLER_CHROMIUM_PATH=$chromium
  export PLAYWRIGHT_DRIVER_PATH=$driver
}

# REALDOCS_PACKAGES are Debian packages of real HTML manuals, each with
# the part of it the tests crawl, made by nineteen generators: mdBook (the
# Rust Book) and rustdoc (a module of the standard library) from
# rust-doc, Sphinx's own manual, PostgreSQL's DocBook manual, Git's manual
# pages and guides (Asciidoc), GNU m4's manual (Texinfo), jsoup's API
# (Javadoc), JsonCpp's API (Doxygen), cairo's reference (gtk-doc),
# JSON-GLib's reference (gi-docgen), YARD's own (YARD), megaparsec's
# (Haddock), an OCaml calendar library's (odoc), Docutils' own (Docutils)
# and SQLite's hand-written documentation; then four more, measured first
# as generators no rule was written for: Node.js's API reference (its own
# generator), Erlang/OTP's stdlib (erl_docgen), MkDocs' own manual and
# Qt's QtNetwork reference (qdoc); and Mbed TLS's API reference (Doxygen),
# whose menu its scripts draw (with Debian's jQuery, which its pages load
# through a link); then five more generators, measured first: Tcllib's
# doctools (man-page-style references), grohtml (GNU pic's manual, troff
# converted by groff), Scribble (the Racket Guide), Apache httpd's XSLT
# manual and LaTeX2HTML (gnuplot's manual). Their licences are in each
# package's copyright file, extracted beside the pages.
REALDOCS_PACKAGES=(
  "rust-doc:usr/share/doc/rust-doc/html/book usr/share/doc/rust-doc/html/std/collections usr/share/doc/rust-doc/copyright"
  "sphinx-doc:usr/share/doc/sphinx-doc/html usr/share/doc/sphinx-doc/copyright"
  "postgresql-doc-15:usr/share/doc/postgresql-doc-15/html usr/share/doc/postgresql-doc-15/copyright"
  "git-doc:usr/share/doc/git-doc"
  "m4-doc:usr/share/doc/m4 usr/share/doc/m4-doc/copyright"
  "libjsoup-java-doc:usr/share/doc/libjsoup-java/api usr/share/doc/libjsoup-java-doc/copyright"
  "libjsoncpp-doc:usr/share/doc/libjsoncpp-doc"
  "libcairo2-doc:usr/share/gtk-doc/html/cairo usr/share/doc/libcairo2-doc/copyright"
  "libjson-glib-doc:usr/share/doc/json-glib-1.0 usr/share/doc/libjson-glib-doc/copyright"
  "yard-doc:usr/share/doc/yard/doc usr/share/doc/yard-doc/copyright"
  "libghc-megaparsec-doc:usr/share/doc/libghc-megaparsec-doc"
  "libcalendar-ocaml-doc:usr/share/doc/libcalendar-ocaml/_html usr/share/doc/libcalendar-ocaml-doc/copyright"
  "docutils-doc:usr/share/doc/docutils-doc"
  "sqlite3-doc:usr/share/doc/sqlite3 usr/share/doc/sqlite3-doc/copyright"
  "nodejs-doc:usr/share/doc/nodejs/api usr/share/doc/nodejs-doc/copyright"
  "erlang-doc:usr/share/doc/erlang-doc/lib/stdlib-4.2/doc/html usr/share/doc/erlang-doc/copyright"
  "mkdocs-doc:usr/share/doc/mkdocs/html usr/share/doc/mkdocs-doc/copyright"
  "qtbase5-doc-html:usr/share/qt5/doc/qtnetwork usr/share/doc/qtbase5-doc-html/copyright"
  "libmbedtls-doc:usr/share/doc/libmbedtls-dev/apidoc usr/share/doc/libmbedtls-doc/copyright"
  "libjs-jquery:usr/share/javascript/jquery/jquery.js usr/share/doc/libjs-jquery/copyright"
  "tcllib:usr/share/doc/tcllib/index.html usr/share/doc/tcllib/html usr/share/doc/tcllib/copyright"
  "groff:usr/share/doc/groff-base/html"
  "groff-base:usr/share/doc/groff-base/copyright"
  "racket-doc:usr/share/doc/racket/guide usr/share/doc/racket-doc/copyright"
  "apache2-doc:usr/share/doc/apache2-doc/manual/en usr/share/doc/apache2-doc/manual/style usr/share/doc/apache2-doc/manual/images usr/share/doc/apache2-doc/copyright"
  "gnuplot-doc:usr/share/doc/gnuplot/htmldocs usr/share/doc/gnuplot-doc/copyright"
)

# deb_download PKG DIR: Debian's package PKG into DIR (its .deb), once;
# prints the .deb's path.
deb_download() {
  local pkg=$1 dir=$2 sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  if ! ls "$dir/${pkg}"_*.deb >/dev/null 2>&1; then
    if ! (cd "$dir" && apt-get download "$pkg" >&2 2>/dev/null); then
      $sudo apt-get update -qq >&2
      (cd "$dir" && apt-get download "$pkg" >&2) || die "could not download $pkg"
    fi
  fi
  ls "$dir/${pkg}"_*.deb | head -1
}

# ensure_realdocs: the real manuals the tests crawl, downloaded once from
# Debian's archive into .data/realdocs (a few tens of MB); sets
# CRAWLER_REALDOCS to the folder that holds usr/share/doc.
ensure_realdocs() {
  local dir="$DATA/realdocs"
  mkdir -p "$dir/debs"
  for entry in "${REALDOCS_PACKAGES[@]}"; do
    local pkg=${entry%%:*} paths=${entry#*:}
    if [ ! -f "$dir/$pkg.done" ]; then
      say "downloading the $pkg manual from Debian's archive (for the real-site tests)"
      local deb
      deb=$(deb_download "$pkg" "$dir/debs")
      local wanted=()
      for p in $paths; do wanted+=("./$p"); done
      dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir" "${wanted[@]}" 2>/dev/null \
        || dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir" --wildcards "${wanted[@]/%/*}" \
        || die "could not unpack $pkg"
      touch "$dir/$pkg.done"
    fi
  done
  export CRAWLER_REALDOCS=$dir
}

# REALPDFS: Debian packages that ship a manual as PDF and as plain text,
# "package:pdf path:text path:name" (paths inside the package). pdfeval
# measures PDF extractors on them (docs/pdf.md).
REALPDFS=(
  "maint-guide:usr/share/doc/maint-guide/maint-guide.en.pdf:usr/share/doc/maint-guide/maint-guide.en.txt.gz:maint-guide"
  "developers-reference:usr/share/developers-reference/developers-reference.pdf:usr/share/developers-reference/developers-reference.txt.gz:developers-reference"
  "debian-policy:usr/share/doc/debian-policy/policy.pdf.gz:usr/share/doc/debian-policy/policy.txt.gz:policy"
  "debian-policy:usr/share/doc/debian-policy/fhs/fhs-3.0.pdf.gz:usr/share/doc/debian-policy/fhs/fhs-3.0.txt.gz:fhs"
  "debian-reference-en:usr/share/debian-reference/debian-reference.en.pdf:usr/share/debian-reference/debian-reference.en.txt.gz:debian-reference"
)

# ensure_realpdfs: the manuals of REALPDFS in $DATA/realpdfs as NAME.pdf
# (or .pdf.gz) beside NAME.txt.gz. Exports CRAWLER_REALPDFS.
ensure_realpdfs() {
  local dir="$DATA/realpdfs"
  mkdir -p "$dir/debs" "$dir/tree"
  for entry in "${REALPDFS[@]}"; do
    IFS=: read -r pkg pdfpath txtpath name <<<"$entry"
    [ -f "$dir/$name.done" ] && continue
    say "reading $pkg from Debian's archive (for the PDF tests and measurements)"
    local deb
    deb=$(deb_download "$pkg" "$dir/debs")
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir/tree" "./$pdfpath" "./$txtpath" || die "could not unpack $pkg"
    local ext=pdf
    [[ $pdfpath == *.gz ]] && ext=pdf.gz
    cp "$dir/tree/$pdfpath" "$dir/$name.$ext" && cp "$dir/tree/$txtpath" "$dir/$name.txt.gz"
    touch "$dir/$name.done"
  done
  export CRAWLER_REALPDFS=$dir
}

# prepare_tests: what the tests and benchmarks need (the Temporal CLI,
# Chromium and the Playwright driver, Postgres), and the variables that
# tell them where it is. The caller traps stop_postgres on EXIT.
# ensure_firecrawl_clients: Firecrawl's JS SDK and CLI, pinned in
# tools/firecrawl (from the npm registry), that the integration tests run
# against the service's Firecrawl-compatible API. Installed again when the
# lock file is newer than what is installed. Exports
# CRAWLER_FIRECRAWL_CLIENTS.
ensure_firecrawl_clients() {
  local pkg="$ROOT/tools/firecrawl"
  if [ ! -f "$pkg/node_modules/.package-lock.json" ] || [ "$pkg/package-lock.json" -nt "$pkg/node_modules/.package-lock.json" ] ||
    [ ! -f "$pkg/node_modules/firecrawl-cli/package.json" ]; then
    say "installing Firecrawl's JS SDK and CLI from the npm registry (for the compatibility tests)"
    (cd "$pkg" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2) || die "could not install Firecrawl's clients"
  fi
  export CRAWLER_FIRECRAWL_CLIENTS=$pkg
}

# ensure_firecrawl_py: a Python with Firecrawl's Python SDK (firecrawl-py
# 4.38.0 and websockets, which its watchers need), in .data/firecrawl-py.
# Made from the SDK's archive where one is at hand (FIRECRAWL_PY_ARCHIVE,
# a folder holding make-venv.sh and the archive; by default the clients
# folder beside the repository, for machines without a package index),
# else with pip from the package index. Exports CRAWLER_FIRECRAWL_PY, or
# CRAWLER_FIRECRAWL_PY_MISSING saying why there is none (the test then
# skips, saying so).
FIRECRAWL_PY_VERSION=4.38.0
ensure_firecrawl_py() {
  local venv="$DATA/firecrawl-py" check="import firecrawl, websockets; assert firecrawl.__version__ == '$FIRECRAWL_PY_VERSION'"
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$check" 2>/dev/null; then
    export CRAWLER_FIRECRAWL_PY=$venv/bin/python
    return
  fi
  if ! command -v python3 >/dev/null; then
    export CRAWLER_FIRECRAWL_PY_MISSING="there is no python3 on this machine"
    return
  fi
  rm -rf "$venv"
  mkdir -p "$DATA"
  local dir
  for dir in ${FIRECRAWL_PY_ARCHIVE:-} "$ROOT/../shared/clients/firecrawl-py" /work/shared/clients/firecrawl-py; do
    if [ -x "$dir/make-venv.sh" ]; then
      say "making a virtualenv with Firecrawl's Python SDK from $dir"
      "$dir/make-venv.sh" "$venv" >&2 || true
      break
    fi
  done
  if ! { [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$check" 2>/dev/null; }; then
    say "installing Firecrawl's Python SDK $FIRECRAWL_PY_VERSION with pip"
    rm -rf "$venv"
    python3 -m venv "$venv" >&2 && "$venv/bin/pip" install -q --retries 1 --timeout 15 \
      "firecrawl-py==$FIRECRAWL_PY_VERSION" websockets >&2 || true
  fi
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$check" 2>/dev/null; then
    export CRAWLER_FIRECRAWL_PY=$venv/bin/python
  else
    export CRAWLER_FIRECRAWL_PY_MISSING="firecrawl-py $FIRECRAWL_PY_VERSION could not be installed: no archive of it (FIRECRAWL_PY_ARCHIVE) and no package index"
  fi
}

# ensure_langchain_loader: LangChain's FireCrawlLoader (@langchain/community)
# with the Firecrawl SDK it is written for (v1), pinned in tools/langchain
# from the npm registry (its .npmrc takes LangChain's optional peers as
# they are). Installed again when the lock file is newer than what is
# installed. Exports CRAWLER_LANGCHAIN_LOADER.
ensure_langchain_loader() {
  npm_folder langchain "LangChain's FireCrawlLoader (for the compatibility tests)"
  export CRAWLER_LANGCHAIN_LOADER=$ROOT/tools/langchain
}

# npm_folder NAME WHAT: installs tools/NAME's packages (WHAT, for the
# message) from its lock file with npm ci, when they are missing or the
# lock file is newer than what is installed.
npm_folder() {
  local pkg="$ROOT/tools/$1"
  if [ ! -f "$pkg/node_modules/.package-lock.json" ] || [ "$pkg/package-lock.json" -nt "$pkg/node_modules/.package-lock.json" ]; then
    say "installing $2 from the npm registry"
    (cd "$pkg" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2) || die "could not install $2"
  fi
}

# ensure_mcp_clients: Firecrawl's MCP server (firecrawl-mcp) and the MCP
# TypeScript SDK's client, pinned in tools/mcp from the npm registry.
# Exports CRAWLER_MCP_CLIENTS.
ensure_mcp_clients() {
  npm_folder mcp "Firecrawl's MCP server and the MCP SDK's client (for the MCP tests)"
  export CRAWLER_MCP_CLIENTS=$ROOT/tools/mcp
}

# ensure_spa_site: the client-rendered manual the integration tests crawl,
# docsify (a documentation SPA) and Fastify's manual (the markdown its
# package ships), pinned in tools/spasite from the npm registry. Installed
# again when the lock file is newer than what is installed. Exports
# CRAWLER_SPA_SITE.
ensure_spa_site() {
  npm_folder spasite "docsify and Fastify's manual (for the client-rendered site test)"
  export CRAWLER_SPA_SITE=$ROOT/tools/spasite
}

# ensure_axe: axe-core, the accessibility checker the console's browser
# test runs, pinned in tools/axe from the npm registry. Exports
# CRAWLER_AXE.
ensure_axe() {
  npm_folder axe "axe-core (for the console's accessibility checks)"
  export CRAWLER_AXE=$ROOT/tools/axe/node_modules/axe-core/axe.min.js
}

prepare_tests() {
  build_temporal
  ensure_browser
  ensure_firecrawl_clients
  ensure_firecrawl_py
  ensure_mcp_clients
  ensure_langchain_loader
  ensure_spa_site
  ensure_axe
  ensure_realdocs
  ensure_realpdfs
  ensure_postgres "${CRAWLER_TEST_DATABASE_URL:-${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}}"
  export CRAWLER_TEST_DATABASE_URL=$PG_URL
  export TEMPORAL_CLI_PATH=$TEMPORAL_BIN
}
