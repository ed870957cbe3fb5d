"""formula"""
