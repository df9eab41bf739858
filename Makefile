# Shortcuts; each target is one script in scripts/.
.PHONY: run test build setup
run:
	scripts/run.sh
test:
	scripts/test.sh
build:
	scripts/setup.sh && scripts/build.sh
setup:
	scripts/setup.sh --test
