"""Running MuranoPL test fixtures (`laguna test`)."""
