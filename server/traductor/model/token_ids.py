"""The ids every project model reserves, and its tokenizer's file name: one place for both
tokenizers (model/tokenizer.py, model/imported_tokenizer.py), which use them as defaults."""

PAD_ID, UNK_ID, BOS_ID, EOS_ID = 0, 1, 2, 3
FILENAME = "tokenizer.model"
