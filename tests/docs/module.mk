# tests/docs/module.mk - the pages' numbers and links (in "make test"):
#   test-doc-numbers  scripts/tables.py on the tree: every generated table and
#                     number of README.md, docs/ and results/*/README.md equals
#                     what the committed results give, no measured number outside
#                     a generated part of README.md and docs/ (docs/MEASUREMENTS.md
#                     excepted), every relative link and #fragment resolves; then
#                     on a scratch copy, one edited number, one changed result, a
#                     hand-copied interval, a table of measured numbers, a broken
#                     link and anchor, and bad markers each found exactly; a
#                     synthetic replicated sweep (tests/stats/mkreplicated.py
#                     through analyze) made into a headline by --write
#                     (tests/docs/doc_numbers.sh; docs/README.md, "Numbers")
DOCS_TEST_DIR := $(BUILD)/tests/docs

.PHONY: test-doc-numbers
test-doc-numbers: $(BIN)/analyze
	@ANALYZE=$(BIN)/analyze sh tests/check.sh doc-numbers sh tests/docs/doc_numbers.sh $(DOCS_TEST_DIR)
TESTS += test-doc-numbers
