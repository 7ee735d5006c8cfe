# Shipped profiles, installed to $(pkgdatadir)/profiles.
profilesdir = $(pkgdatadir)/profiles
dist_profiles_DATA = \
	profiles/default.ini \
	profiles/qa.ini \
	profiles/devbackend.ini \
	profiles/deny-network.ini \
	profiles/no-loopback.ini \
	profiles/low-nofile.ini \
	profiles/restrictive.ini \
	profiles/qa-session.ini \
	profiles/devbackend-session.ini \
	profiles/codex-read-only.ini \
	profiles/codex-workspace-write.ini \
	profiles/codex-workspace-write-network.ini \
	profiles/claude-code.ini
