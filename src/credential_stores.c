#include "config.h"

#include "credential_stores.h"

/* Each entry names the tool and where its documentation puts the file.
 * Directories are hidden whole where the tool keeps keys or tokens in
 * several files; probe then checks the file that holds them. */
const struct credential_store credential_stores[] = {
    /* OpenSSH: ssh(1) FILES, private keys and known hosts */
    {".ssh", NULL, "SSH keys"},
    /* GnuPG: GNUPGHOME default, the private keyring */
    {".gnupg", NULL, "GnuPG keys"},
    /* AWS CLI: credentials and config, SSO token cache */
    {".aws", NULL, "AWS credentials"},
    /* netrc(5): machine/login/password; curl, ftp, git, Heroku CLI, wandb */
    {".netrc", NULL, "netrc passwords"},
    /* Docker CLI: config.json "auths" (docker login) */
    {".docker", ".docker/config.json", "Docker registry auths"},
    /* podman, buildah, skopeo: containers-auth.json(5), the fallback path
     * (the default one is under $XDG_RUNTIME_DIR, hidden with /run/user) */
    {".config/containers/auth.json", NULL, "podman registry auths"},
    /* npm: npmrc(5), the per-user config holds registry auth tokens */
    {".npmrc", NULL, "npm config (auth tokens)"},
    /* yarn berry: npmAuthToken in the home rc */
    {".yarnrc.yml", NULL, "yarn config (npmAuthToken)"},
    /* Bun: bunfig.toml's [install.scopes] tokens, the global file */
    {".bunfig.toml", NULL, "Bun config (registry tokens)"},
    /* git-credential-store(1): the default file */
    {".git-credentials", NULL, "git credential store"},
    /* git-credential-store(1): the XDG location */
    {".config/git/credentials", NULL, "git credential store"},
    /* git-credential-cache(1): the daemon's socket answers with passwords */
    {".cache/git/credential", NULL, "git credential cache socket"},
    /* git-credential-cache(1): the socket's older location */
    {".git-credential-cache", NULL, "git credential cache socket"},
    /* gh: a token per host (gh help environment) */
    {".config/gh/hosts.yml", NULL, "GitHub CLI token"},
    /* hub: its token (hub(1) "Configuration") */
    {".config/hub", NULL, "hub token"},
    /* GitHub Copilot (editor plugins, copilot.vim): hosts.json/apps.json */
    {".config/github-copilot", NULL, "GitHub Copilot login"},
    /* glab: a token per host (GitLab CLI docs, "Configure the CLI") */
    {".config/glab-cli/config.yml", NULL, "GitLab CLI token"},
    /* Subversion: svn's cached passwords (auth/svn.simple) */
    {".subversion/auth", NULL, "Subversion cached passwords"},
    /* cargo reference, "Credentials" */
    {".cargo/credentials.toml", NULL, "cargo registry token"},
    /* cargo: the same, before Rust 1.39 */
    {".cargo/credentials", NULL, "cargo registry token"},
    /* PyPA "The .pypirc file" (twine upload) */
    {".pypirc", NULL, "PyPI credentials"},
    /* Poetry: http-basic and pypi-token when no keyring (poetry docs) */
    {".config/pypoetry/auth.toml", NULL, "Poetry repository credentials"},
    /* Hugging Face hub: HF_HOME default, huggingface-cli login */
    {".cache/huggingface/token", NULL, "Hugging Face token"},
    /* Hugging Face hub: the token's path before huggingface_hub 0.10 */
    {".huggingface/token", NULL, "Hugging Face token"},
    /* Kaggle API: kaggle.json (legacy path) */
    {".kaggle/kaggle.json", NULL, "Kaggle API key"},
    /* Kaggle API: kaggle.json (XDG path) */
    {".config/kaggle/kaggle.json", NULL, "Kaggle API key"},
    /* RubyGems "gem push": the API key */
    {".gem/credentials", NULL, "RubyGems API key"},
    /* Bundler: bundle config, BUNDLE_<HOST> source credentials */
    {".bundle/config", NULL, "Bundler source credentials"},
    /* Composer (PHP): COMPOSER_HOME on Linux, auth.json */
    {".config/composer/auth.json", NULL, "Composer auth"},
    /* Composer: the older COMPOSER_HOME */
    {".composer/auth.json", NULL, "Composer auth"},
    /* NuGet: NuGet.Config packageSourceCredentials, the user-wide file */
    {".nuget/NuGet/NuGet.Config", NULL, "NuGet source credentials"},
    /* Maven "Password Encryption": the master password */
    {".m2/settings-security.xml", NULL, "Maven master password"},
    /* Maven settings reference: <servers> usernames and passwords */
    {".m2/settings.xml", NULL, "Maven server passwords"},
    /* Gradle: gradle.properties in GRADLE_USER_HOME (publishing and
     * signing passwords, repository credentials) */
    {".gradle/gradle.properties", NULL, "Gradle properties (passwords)"},
    /* sbt: Credentials(Path.userHome / ".sbt" / ".credentials") */
    {".sbt/.credentials", NULL, "sbt repository credentials"},
    /* Ivy/sbt: the older credentials file */
    {".ivy2/.credentials", NULL, "Ivy repository credentials"},
    /* Leiningen: credentials.clj.gpg (lein help deploying) */
    {".lein/credentials.clj.gpg", NULL, "Leiningen repository credentials"},
    /* kubectl: $HOME/.kube/config (kubeconfig docs) */
    {".kube", ".kube/config", "Kubernetes credentials"},
    /* minikube: MINIKUBE_HOME, client keys and certificates */
    {".minikube", NULL, "minikube client keys"},
    /* helm registry login: config.json */
    {".config/helm/registry", NULL, "Helm registry auths"},
    /* helm repo add --username/--password: repositories.yaml */
    {".config/helm/repositories.yaml", NULL, "Helm repository passwords"},
    /* Rancher CLI: cli2.json, the server tokens */
    {".rancher/cli2.json", NULL, "Rancher CLI token"},
    /* gcloud: credentials.db, application default credentials */
    {".config/gcloud", NULL, "Google Cloud credentials"},
    /* Firebase CLI: configstore, the login's refresh token */
    {".config/configstore/firebase-tools.json", NULL, "Firebase CLI login"},
    /* Snyk CLI: configstore, the API token */
    {".config/configstore/snyk.json", NULL, "Snyk token"},
    /* az: AZURE_CONFIG_DIR default (tokens, msal cache) */
    {".azure", NULL, "Azure CLI tokens"},
    /* Oracle Cloud CLI: config and API keys */
    {".oci", NULL, "Oracle Cloud keys"},
    /* IBM Cloud CLI: config.json, the IAM tokens */
    {".bluemix/config.json", NULL, "IBM Cloud CLI tokens"},
    /* Alibaba Cloud CLI: config.json, access keys */
    {".aliyun/config.json", NULL, "Alibaba Cloud keys"},
    /* doctl: config.yaml, access-token */
    {".config/doctl", NULL, "DigitalOcean token"},
    /* Linode CLI: linode-cli config, the token */
    {".config/linode-cli", NULL, "Linode token"},
    /* Hetzner hcloud: cli.toml, the contexts' tokens */
    {".config/hcloud/cli.toml", NULL, "Hetzner Cloud token"},
    /* Scaleway CLI: config.yaml, access and secret keys */
    {".config/scw/config.yaml", NULL, "Scaleway keys"},
    /* OpenStack clients: clouds.yaml, the user-wide file (passwords) */
    {".config/openstack/clouds.yaml", NULL, "OpenStack passwords"},
    /* Cloud Foundry CLI: config.json, the tokens */
    {".cf/config.json", NULL, "Cloud Foundry tokens"},
    /* Pulumi: credentials.json, the access tokens (pulumi login) */
    {".pulumi/credentials.json", NULL, "Pulumi access token"},
    /* terraform login(1) */
    {".terraform.d/credentials.tfrc.json", NULL, "Terraform Cloud token"},
    /* Terraform CLI config: credentials blocks */
    {".terraformrc", NULL, "Terraform CLI credentials"},
    /* Vault CLI: the token helper's default */
    {".vault-token", NULL, "Vault token"},
    /* SOPS: the age key file on Linux ($XDG_CONFIG_HOME/sops/age) */
    {".config/sops/age/keys.txt", NULL, "SOPS age keys"},
    /* Doppler CLI: .doppler.yaml, the tokens */
    {".doppler", NULL, "Doppler token"},
    /* 1Password CLI: its config directory (accounts, sessions) */
    {".config/op", NULL, "1Password CLI config"},
    /* Bitwarden CLI: data.json (the encrypted vault and session keys) */
    {".config/Bitwarden CLI", NULL, "Bitwarden CLI data"},
    /* libpq "The Password File" */
    {".pgpass", NULL, "PostgreSQL passwords"},
    /* MySQL option file: [client] password */
    {".my.cnf", NULL, "MySQL client options (password)"},
    /* mysql_config_editor: login paths */
    {".mylogin.cnf", NULL, "MySQL login paths"},
    /* Databricks CLI: .databrickscfg, the tokens */
    {".databrickscfg", NULL, "Databricks tokens"},
    /* Snowflake CLI and connectors: connections.toml */
    {".snowflake/connections.toml", NULL, "Snowflake connections (passwords)"},
    /* SnowSQL: its config, the passwords */
    {".snowsql/config", NULL, "SnowSQL passwords"},
    /* MongoDB Atlas CLI: config.toml, the API keys */
    {".config/atlascli/config.toml", NULL, "MongoDB Atlas keys"},
    /* s3cmd: access_key/secret_key */
    {".s3cfg", NULL, "s3cmd keys"},
    /* s3fs: the default password file */
    {".passwd-s3fs", NULL, "s3fs keys"},
    /* gsutil/boto credentials */
    {".boto", NULL, "boto/gsutil credentials"},
    /* rclone config: the remotes' tokens */
    {".config/rclone/rclone.conf", NULL, "rclone remotes' tokens"},
    /* Cloudflare wrangler: the OAuth token (XDG path) */
    {".config/.wrangler/config/default.toml", NULL, "Cloudflare wrangler token"},
    /* Cloudflare wrangler: the older path */
    {".wrangler/config/default.toml", NULL, "Cloudflare wrangler token"},
    /* Netlify CLI: config.json, the access tokens */
    {".config/netlify/config.json", NULL, "Netlify token"},
    /* Vercel CLI: auth.json on Linux */
    {".local/share/com.vercel.cli/auth.json", NULL, "Vercel token"},
    /* fly.io flyctl: config.yml, access_token */
    {".fly/config.yml", NULL, "Fly.io token"},
    /* Railway CLI: config.json, the token */
    {".railway/config.json", NULL, "Railway token"},
    /* Supabase CLI: access-token (when no keyring) */
    {".supabase/access-token", NULL, "Supabase token"},
    /* Heroku CLI: its config dir (the token itself is in .netrc) */
    {".config/heroku", NULL, "Heroku CLI config"},
    /* Expo CLI: state.json, the session */
    {".expo/state.json", NULL, "Expo session"},
    /* ngrok agent: ngrok.yml, authtoken */
    {".config/ngrok/ngrok.yml", NULL, "ngrok authtoken"},
    /* Sentry CLI: .sentryclirc, the auth token */
    {".sentryclirc", NULL, "Sentry auth token"},
    /* Stripe CLI: config.toml, the API keys */
    {".config/stripe/config.toml", NULL, "Stripe keys"},
    /* Twilio CLI: config.json, the API keys */
    {".twilio-cli/config.json", NULL, "Twilio keys"},
    /* CircleCI CLI: cli.yml, the token */
    {".circleci/cli.yml", NULL, "CircleCI token"},
    /* Ansible Galaxy: the API token */
    {".ansible/galaxy_token", NULL, "Ansible Galaxy token"},
    /* Salesforce CLI: the org auth files (sfdx, then sf) */
    {".sfdx", NULL, "Salesforce org auths"},
    {".sf", NULL, "Salesforce org auths"},
    /* Ollama: the key it signs requests to ollama.com with */
    {".ollama/id_ed25519", NULL, "Ollama signing key"},
    /* GNOME Keyring's stores */
    {".local/share/keyrings", NULL, "GNOME keyrings"},
    /* KWallet's stores */
    {".local/share/kwalletd", NULL, "KWallet"},
    /* pass(1): PASSWORD_STORE_DIR default */
    {".password-store", NULL, "pass store"},
    /* Firefox profiles: cookies, logins.json */
    {".mozilla", NULL, "Firefox profiles (cookies, logins)"},
    /* Thunderbird profiles: logins.json, mail */
    {".thunderbird", NULL, "Thunderbird profiles (logins)"},
    /* Chrome user data: cookies, Login Data */
    {".config/google-chrome", NULL, "Chrome profile (cookies, logins)"},
    /* Chromium, the same */
    {".config/chromium", NULL, "Chromium profile (cookies, logins)"},
    /* Brave, the same */
    {".config/BraveSoftware", NULL, "Brave profile (cookies, logins)"},
    /* Microsoft Edge, the same */
    {".config/microsoft-edge", NULL, "Edge profile (cookies, logins)"},
    /* Vivaldi, the same */
    {".config/vivaldi", NULL, "Vivaldi profile (cookies, logins)"},
    /* Slack desktop: its cookies (the session) */
    {".config/Slack", NULL, "Slack desktop session"},
    /* the agents' own logins: test commands need none (qa-session gives
     * them back) */
    /* Claude Code on Linux: the OAuth credentials */
    {".claude/.credentials.json", NULL, "Claude Code login"},
    /* Claude Code: the global config (account, primaryApiKey) */
    {".claude.json", NULL, "Claude Code config (account, API key)"},
    /* Codex CLI: CODEX_HOME/auth.json */
    {".codex/auth.json", NULL, "Codex CLI login"},
    /* Gemini CLI: the Google login's OAuth tokens */
    {".gemini/oauth_creds.json", NULL, "Gemini CLI login"},
    /* opencode: auth.json, the providers' keys */
    {".local/share/opencode/auth.json", NULL, "opencode provider keys"},
    /* shell and REPL histories: commands typed with tokens and passwords */
    /* bash(1): HISTFILE default */
    {".bash_history", NULL, "shell history"},
    /* zsh: the usual HISTFILE (zshparam(1)) */
    {".zsh_history", NULL, "shell history"},
    /* zsh-newuser-install's HISTFILE */
    {".histfile", NULL, "shell history"},
    /* fish: the history file */
    {".local/share/fish/fish_history", NULL, "shell history"},
    /* python: site module, readline history */
    {".python_history", NULL, "REPL history"},
    /* node: NODE_REPL_HISTORY default */
    {".node_repl_history", NULL, "REPL history"},
    /* psql(1): HISTFILE default */
    {".psql_history", NULL, "REPL history"},
    /* mysql: MYSQL_HISTFILE default */
    {".mysql_history", NULL, "REPL history"},
    /* sqlite3 shell history */
    {".sqlite_history", NULL, "REPL history"},
    /* redis-cli: REDISCLI_HISTFILE default */
    {".rediscli_history", NULL, "REPL history"},
    /* irb: the history file (older default) */
    {".irb_history", NULL, "REPL history"},
    /* irb: the XDG history file */
    {".local/share/irb/irb_history", NULL, "REPL history"},
    /* for a root caller, whose command is kernel uid 0: password hashes
     * and private keys that only root can read */
    /* shadow(5) and its backups */
    {"/etc/shadow", NULL, "password hashes"},
    {"/etc/gshadow", NULL, "group password hashes"},
    {"/etc/shadow-", NULL, "password hashes (backup)"},
    {"/etc/gshadow-", NULL, "group password hashes (backup)"},
    /* pam_pwhistory: old password hashes */
    {"/etc/security/opasswd", NULL, "old password hashes"},
    /* Debian's ssl-cert: TLS private keys */
    {"/etc/ssl/private", NULL, "TLS private keys"},
    /* sshd(8) FILES: host keys */
    {"/etc/ssh/ssh_host_rsa_key", NULL, "SSH host key"},
    {"/etc/ssh/ssh_host_ecdsa_key", NULL, "SSH host key"},
    {"/etc/ssh/ssh_host_ed25519_key", NULL, "SSH host key"},
    {"/etc/ssh/ssh_host_dsa_key", NULL, "SSH host key"},
    /* Kerberos: the host's keytab (krb5.conf default_keytab_name) */
    {"/etc/krb5.keytab", NULL, "Kerberos keytab"},
    /* WireGuard (wg-quick(8)): interface private keys */
    {"/etc/wireguard", NULL, "WireGuard private keys"},
    /* NetworkManager: system connections (Wi-Fi and VPN secrets) */
    {"/etc/NetworkManager/system-connections", NULL, "NetworkManager secrets"},
};
const size_t credential_stores_n = sizeof credential_stores / sizeof credential_stores[0];
