# The two commands of the README. Each installs whatever is missing first.
.PHONY: serve test setup build

serve:  ## build and serve the app at http://127.0.0.1:8080/
	scripts/serve.sh

test:   ## fmt, clippy, native tests, release build, browser tests
	scripts/test.sh

setup:  ## install the pinned tools only
	scripts/setup.sh

build:  ## release build into dist/
	scripts/setup.sh && . scripts/env.sh && trunk build --release --offline
