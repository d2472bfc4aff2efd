"""systemd"""
