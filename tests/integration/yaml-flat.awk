# A reader of the YAML subset CI files are written in, for the tests that
# run a GitHub Action's or a GitLab job's steps as the CI system would:
# block mappings and block sequences by indentation, plain and quoted
# scalars, `|` block scalars. Each scalar comes out as one line
#   PATH<TAB>VALUE        e.g. runs.steps.2.env.SBX_MODE<TAB>${{ inputs.mode }}
# (sequence items are numbered from 0; a block scalar gives one line per
# line of it, under the same PATH). Flow collections, anchors and multi-line
# plain scalars are not read: a file that needs them fails the test that
# relies on this, which is the point of a subset.
function ind(s) { match(s, /^ */); return RLENGTH }
function path(d,    p, i) {
    p = ""
    for (i = 1; i <= d; i++) p = p (p == "" ? "" : ".") name[i]
    return p
}
function unquote(v) {
    sub(/[ \t]+$/, "", v)
    if (v ~ /^".*"$/ || v ~ /^'.*'$/) return substr(v, 2, length(v) - 2)
    sub(/[ \t]+#.*$/, "", v)
    return v
}
function pop(i) { while (depth > 0 && level[depth] >= i) depth-- }
# A "key: value" or "key:" at indentation i.
function keyline(i, s,    k, v) {
    k = s; sub(/:.*/, "", k)
    v = substr(s, length(k) + 2); sub(/^[ \t]+/, "", v)
    pop(i)
    depth++; level[depth] = i; name[depth] = k
    if (v == "" ) return
    if (v == "|" || v == "|-" || v == ">") { block = path(depth); block_min = i + 1; block_at = -1; depth--; return }
    print path(depth) "\t" unquote(v)
    depth--
}
{
    if (block != "") {
        if ($0 ~ /^[ \t]*$/) { if (block_at >= 0) print block "\t"; next }
        if (ind($0) >= block_min) {
            if (block_at < 0) block_at = ind($0)
            print block "\t" substr($0, block_at + 1)
            next
        }
        block = ""
    }
    if ($0 ~ /^[ \t]*(#.*)?$/) next
    i = ind($0); s = substr($0, i + 1)
    if (s ~ /^- / || s == "-") {
        pop(i)
        p = path(depth)
        n = (p in count) ? count[p] : 0
        count[p] = n + 1
        depth++; level[depth] = i; name[depth] = n
        s = substr(s, 3)
        if (s ~ /^[A-Za-z0-9_.-]+:( |$)/) keyline(i + 2, s)
        else if (s != "") print path(depth) "\t" unquote(s)
        next
    }
    if (s ~ /^[A-Za-z0-9_.-]+:( |$)/) { keyline(i, s); next }
    print FILENAME ":" NR ": not in the YAML subset: " $0 > "/dev/stderr"
    exit 1
}
