touch alive
