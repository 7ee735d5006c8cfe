#!/bin/sh
# Escape suite, secrets (issue 14 item 11): a sandboxed command reading the
# caller's credential stores and secret-looking environment variables.
# Each is first read without sbx (the attack works), then under the
# shipped profiles: the stores read empty, including below qa-session's
# writable ~/.config; the variables are gone under default and qa, back
# with --keepenv, --setenv or a profile's keep; the session profiles keep
# the agent's own key and login. Runs as root and as an unprivileged user.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

make_visible_tmpdir escape-secrets
home=$tmpdir/home work=$tmpdir/work
mkdir -p "$work" "$home/.config/gh" "$home/.kube" "$home/.cargo" "$home/.ssh" "$home/.claude" "$home/.config/gcloud"
tok=FAKE-7f3a9c
printf '//registry.npmjs.org/:_authToken=%s\n' "$tok" >"$home/.npmrc"
printf 'https://u:%s@github.com\n' "$tok" >"$home/.git-credentials"
printf 'github.com:\n    oauth_token: %s\n' "$tok" >"$home/.config/gh/hosts.yml"
printf 'token = "%s"\n' "$tok" >"$home/.cargo/credentials.toml"
printf 'token = "%s"\n' "$tok" >"$home/.cargo/credentials"
printf '[pypi]\npassword = %s\n' "$tok" >"$home/.pypirc"
printf 'users: [{user: {token: %s}}]\n' "$tok" >"$home/.kube/config"
printf '{"refresh_token": "%s"}\n' "$tok" >"$home/.config/gcloud/application_default_credentials.json"
printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n' "$tok" >"$home/.ssh/id_ed25519"
for h in .bash_history .zsh_history .python_history .node_repl_history .psql_history .mysql_history; do
    printf 'login %s\n' "$tok" >"$home/$h"
done
printf '{"claudeAiOauth": "%s"}\n' "$tok" >"$home/.claude/.credentials.json"
# issue 28: stores the first table missed, each at its tool's documented path
more=".config/github-copilot/hosts.json .config/containers/auth.json .cache/huggingface/token
.huggingface/token .pulumi/credentials.json .config/sops/age/keys.txt .m2/settings-security.xml
.m2/settings.xml .gradle/gradle.properties .sbt/.credentials .config/composer/auth.json
.config/pypoetry/auth.toml .terraformrc .databrickscfg .kaggle/kaggle.json .config/op/config
.fly/config.yml .sentryclirc .config/ngrok/ngrok.yml .config/configstore/firebase-tools.json
.config/.wrangler/config/default.toml .config/hcloud/cli.toml .config/openstack/clouds.yaml
.docker/config.json .subversion/auth/svn.simple/x .nuget/NuGet/NuGet.Config"
for f in $more .claude.json .gemini/oauth_creds.json; do
    mkdir -p "$(dirname "$home/$f")" && printf 'secret %s\n' "$tok" >"$home/$f"
done
stores=".npmrc .git-credentials .config/gh/hosts.yml .cargo/credentials.toml .cargo/credentials .pypirc
.kube/config .config/gcloud/application_default_credentials.json .ssh/id_ed25519 .bash_history
.zsh_history .python_history .node_repl_history .psql_history .mysql_history $more"
cd "$work" || exit 1

# readable RUNNER...: the stores whose secret the runner's command reads
readable() {
    script='for f in '$(echo $stores)'; do grep -qs '"$tok"' "$HOME/$f" && printf "%s " "$f"; done; true'
    HOME=$home "$@" sh -c "$script" </dev/null 2>/dev/null
}

# --- credential stores -------------------------------------------------------
is "$(readable env)" "$(echo $stores) " "without sbx every planted store is readable (the attack works)"
for prof in default qa qa-session devbackend-session restrictive; do
    is "$(readable "$SBX" run -p "$prof" --)" "" "-p $prof: no store is readable"
done
# qa-session makes ~/.config writable; the deeper hide is mounted after it
HOME=$home "$SBX" run -p qa-session -- sh -c \
    'echo x >"$HOME/.config/new" && cat "$HOME/.config/new"; echo y >"$HOME/.config/gh/hosts.yml" 2>/dev/null || echo refused' \
    </dev/null >"$tmpdir/out" 2>/dev/null
is "$(cat "$tmpdir/out")" "x
refused" "qa-session: ~/.config is writable (the test can fail), its gh/hosts.yml stays hidden and read-only"
like "$(cat "$home/.config/gh/hosts.yml")" "$tok" "... and the host's hosts.yml is unchanged"
for f in .claude/.credentials.json .claude.json .gemini/oauth_creds.json; do
    for prof in qa-session devbackend-session; do
        out=$(HOME=$home "$SBX" run -p "$prof" -- cat "$home/$f" </dev/null 2>/dev/null)
        like "$out" "$tok" "-p $prof: the agent's own login $f is readable (given back with -hide?)"
    done
    like "$(cat "$home/$f")" "$tok" "$f is readable without sbx (the attack works)"
    out=$(HOME=$home "$SBX" run -p qa -- cat "$home/$f" </dev/null 2>/dev/null)
    is "$out" "" "-p qa: the agent's login $f is hidden from test commands"
done
printf '[profile]\ninclude = default\n[filesystem]\n-hide? = ${HOME}/.npmrc\n' >"$tmpdir/npm.ini"
is "$(readable "$SBX" run -p "$tmpdir/npm.ini" --)" ".npmrc " "a profile gives one store back with -hide?"

# /etc/shadow: a root caller's command is kernel uid 0 and reads it by DAC
# (hidden, it is an empty file: nothing to read)
shadow() { "$@" sh -c 'head -c1 /etc/shadow 2>/dev/null | grep -q . && echo read || echo nothing' </dev/null 2>/dev/null; }
if is_root; then
    is "$(shadow env)" read "as root, without sbx /etc/shadow is readable (the attack works)"
    is "$(shadow "$SBX" run -p default --)" nothing "as root, under default /etc/shadow reads nothing"
    is "$(shadow "$SBX" run -p qa-session --)" nothing "as root, under qa-session too"
else
    is "$(shadow env)" nothing "as uid $(id -u), /etc/shadow is refused without sbx already (root-only attack)"
    is "$(shadow "$SBX" run -p default --)" nothing "as uid $(id -u), and under default"
    is "$(shadow "$SBX" run -p qa-session --)" nothing "as uid $(id -u), and under qa-session"
fi

# --- environment ---------------------------------------------------------------
names="GITHUB_TOKEN NPM_TOKEN OPENAI_API_KEY MY_SERVICE_SECRET DB_PASSWORD AWS_ACCESS_KEY_ID"
names="$names AWS_SECRET_ACCESS_KEY npm_config__authToken ANTHROPIC_API_KEY"
# issue 28: by name, and by value under names no pattern foresees
names="$names DATABASE_URL REDIS_URL SENTRY_DSN SLACK_WEBHOOK_URL SMTP_PASS LDAP_PWD CI_JOB_JWT"
names="$names DOCKER_AUTH_CONFIG AZURE_STORAGE_CONNECTION_STRING APP_DB SETTING_A SETTING_B"
names="$names SETTING_C SETTING_D SETTING_E SETTING_F SETTING_G SETTING_H SETTING_I SETTING_J"
jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjaSIsImpvYiI6NDJ9.c2lnbmF0dXJlLW9mLXRoZS1qd3QtdG9rZW4
ghp=ghp_$(printf 'A%.0s' $(seq 36))
# seen RUNNER...: which of $names the runner's command receives
seen() {
    env GITHUB_TOKEN=$tok NPM_TOKEN=$tok OPENAI_API_KEY=$tok MY_SERVICE_SECRET=$tok DB_PASSWORD=$tok \
        AWS_ACCESS_KEY_ID=$tok AWS_SECRET_ACCESS_KEY=$tok npm_config__authToken=$tok ANTHROPIC_API_KEY=$tok \
        DATABASE_URL=postgres://db/app REDIS_URL=redis://cache:6379 SENTRY_DSN=https://k@o1.ingest.test/1 \
        SLACK_WEBHOOK_URL=https://hooks.slack.test/T/B/x SMTP_PASS=$tok LDAP_PWD=$tok CI_JOB_JWT=$tok \
        DOCKER_AUTH_CONFIG='{"auths":{}}' \
        AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=a;AccountKey=$tok" \
        APP_DB="postgres://app:$tok@db.test:5432/app" SETTING_A="$jwt" SETTING_B="Bearer $ghp" \
        SETTING_C=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123 \
        SETTING_D=glpat-abcdefghijklmnopqrstu SETTING_E=xoxb-1234567890-abcdefghijkl \
        SETTING_F=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123 SETTING_G=AKIAIOSFODNN7EXAMPLE \
        SETTING_H=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH SETTING_I=npm_abcdefghijklmnopqrstuvwxyz0123456789 \
        SETTING_J="Server=db;Database=app;User Id=sa;Password=$tok;" \
        PLAIN_URL=https://example.test/x GREETING=hello-world SK_LIST=sk-short \
        HOME=$home "$@" sh -c 'env | sed -n "s/=.*//p" | sort | tr "\n" " "' </dev/null 2>/dev/null
}
all=$(printf '%s\n' $names | sort | tr '\n' ' ')
secret_seen() { # the names of $names among $1
    for n in $1; do case " $names " in *" $n "*) printf '%s ' "$n" ;; esac; done
}
is "$(secret_seen "$(seen env)")" "$all" "without sbx the command gets every secret-named variable (the attack works)"
is "$(secret_seen "$(seen "$SBX" run -p default --)")" "" "-p default: none of them"
is "$(secret_seen "$(seen "$SBX" run -p qa --)")" "" "-p qa: none of them"
like "$(seen "$SBX" run -p qa --)" "PATH " "-p qa: PATH and the rest still pass"
like "$(seen "$SBX" run -p default --)" " GREETING " "-p default: a value that is a word passes"
like "$(seen "$SBX" run -p default --)" " PLAIN_URL " "-p default: a URL without a password passes"
like "$(seen "$SBX" run -p default --)" "SK_LIST " "-p default: a prefix without a token after it passes"
printf '[profile]\ninclude = qa\n[environment]\nkeep = APP_DB SETTING_*\n' >"$tmpdir/keepv.ini"
is "$(secret_seen "$(seen "$SBX" run -p "$tmpdir/keepv.ini" --)")" \
    "APP_DB SETTING_A SETTING_B SETTING_C SETTING_D SETTING_E SETTING_F SETTING_G SETTING_H SETTING_I SETTING_J " \
    "keep wins over the value check too"
is "$(secret_seen "$(seen "$SBX" run -p qa --keepenv APP_DB --)")" "APP_DB " "--keepenv APP_DB: a secret value passes when asked for"
is "$(secret_seen "$(seen "$SBX" run -p qa --keepenv GITHUB_TOKEN --)")" "GITHUB_TOKEN " \
    "--keepenv GITHUB_TOKEN: that one only"
out=$(env GITHUB_TOKEN=outer "$SBX" run -p qa --setenv GITHUB_TOKEN=explicit -- sh -c 'echo $GITHUB_TOKEN' </dev/null 2>/dev/null)
is "$out" explicit "--setenv GITHUB_TOKEN=...: present with the given value"
printf '[profile]\ninclude = qa\n[environment]\nkeep = GITHUB_TOKEN AWS_*\n' >"$tmpdir/keep.ini"
is "$(secret_seen "$(seen "$SBX" run -p "$tmpdir/keep.ini" --)")" "AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY GITHUB_TOKEN " \
    "a profile's keep (a name and a pattern) wins over the included unset patterns"
for prof in qa-session devbackend-session; do
    is "$(secret_seen "$(seen "$SBX" run -p "$prof" --)")" "ANTHROPIC_API_KEY OPENAI_API_KEY " \
        "-p $prof: only the agents' API keys"
done
is "$(secret_seen "$(seen "$SBX" run -p qa-session --unsetenv ANTHROPIC_API_KEY --)")" "OPENAI_API_KEY " \
    "--unsetenv after the session's keep removes the key again"
is "$(secret_seen "$(seen "$SBX" run -p qa-session -- "$SBX" run -p qa --)")" "" \
    "a test command the session runs under qa loses the agent's keys"

# the run record says the same, names only
seen "$SBX" run -p qa --report "$tmpdir/r.json" -- >/dev/null
is "$(jq -r '[.environment.removed[] | select(. == "GITHUB_TOKEN" or . == "npm_config__authToken")] | sort | join(" ")' "$tmpdir/r.json")" \
    "GITHUB_TOKEN npm_config__authToken" "run record: removed lists the variables the patterns unset"
is "$(jq -r '[.environment.secret_looking_passed[] | select(. == "GITHUB_TOKEN")] | length' "$tmpdir/r.json")" 0 \
    "run record: and not as passed"
grep -q "$tok" "$tmpdir/r.json"
isnt $? 0 "run record: no value"
seen "$SBX" run -p qa-session --report "$tmpdir/s.json" -- >/dev/null
is "$(jq -r '[.environment.secret_looking_passed[] | select(. == "ANTHROPIC_API_KEY")] | length' "$tmpdir/s.json")" 1 \
    "run record under qa-session: ANTHROPIC_API_KEY is named as a passed secret"

done_testing
