# accuracy/module.mk - `make accuracy`: the accuracy study (accuracy/accuracy.sh;
# docs/SAMPLING.md, "How accurate is a sampled profile").  Every workload x
# periods 4K..32M x fixed and poisson x 10 offsets / seeds against one exact
# run; results in results/accuracy-<UTC time>/ (ACCURACY_ARGS: more options,
# see accuracy/accuracy.sh --help).
.PHONY: accuracy
accuracy: deps
	@$(MAKE) --no-print-directory all
	sh accuracy/accuracy.sh --bin $(BIN) $(ACCURACY_ARGS)
