export URL=db://here
