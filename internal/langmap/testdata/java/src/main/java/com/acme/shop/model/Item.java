package com.acme.shop.model;

public sealed interface Item permits Book {}
