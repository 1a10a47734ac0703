echo unreachable
