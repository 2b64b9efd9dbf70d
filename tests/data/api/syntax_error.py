# A kernel file with a syntax error on line 4 (unclosed call before the colon).
import pypto_pro.language as pl

def k(x:
    pass
