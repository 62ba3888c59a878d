"""`traductor bench`: engine throughput of a model against the engines users would pick instead,
and the same model through `traductor serve`, unary and streams, in one run.

The model is random weights (seed 0) of a shape, exported at fp32 and int8 into a temporary
directory, or a bundle from `traductor export` (`--bundle DIR`; `--bundle default` is the
packaged default model), which is only read and runs at the precision its config.json names.
The engine's work and its timing are in engine.py (sources of 24 token ids, exactly 32 new
tokens each, batch sizes 1, 8 and 32); the anchors run the same work on random weights of the
same shape (benchmarks/run_anchors.py). `--service LEVELS` serves the model and loads it at each
concurrency level twice, unary calls then streams, exactly 32 new tokens per call, real
sentences encoded by the model's own tokenizer (service.py); report.py shows the two
side by side with their ratio. The command and its flags are command.py, the order of the
timings and the report measure.py.

    traductor bench                                   traductor only, default shape 512,6,8,2048,32000
    traductor bench --anchors --out docs/bench        + CTranslate2, Optimum ORT, PyTorch generate
    traductor bench --shape 64,2,4,128,1000 --json    tiny, machine-readable (last line)
    traductor bench --bundle default --service 1,8,32,64   the shipped model: engine, unary and streams
"""
