print('never run')
