"""MuranoPL: classes, objects, contracts, methods and their execution.

This package knows nothing of deployment, storage or networks: it loads class
definitions handed to it by a class source and runs them.
"""
