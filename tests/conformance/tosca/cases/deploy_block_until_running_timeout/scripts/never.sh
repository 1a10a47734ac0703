touch never-ran
