"""How good the labels are: metrics against a gold column, and the experiments that pick defaults."""
