"""The gene-pool trainer: evolving genomes by letting them play each other."""
