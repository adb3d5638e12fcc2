"""DiskSim 4.0 model files: the parser (``parse``) and the importer to simcore profiles
(``importer``)."""
