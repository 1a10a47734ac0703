echo started >> starts
