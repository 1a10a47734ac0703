echo erased >> note
