"""What players read and see: boards, words, notices, move lists and rules pages."""
