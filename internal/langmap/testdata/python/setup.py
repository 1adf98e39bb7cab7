from setuptools import setup
setup(name="shop")
