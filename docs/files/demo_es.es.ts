<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="es">
<context>
    <name>MainWindow</name>
    <message>
        <location filename="mainwindow.cpp" line="42"/>
        <source>Cannot open %1</source>
        <translation type="unfinished">No se puede abrir %1</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) deleted</source>
        <translation type="unfinished"><numerusform>%n archivo(s) eliminados</numerusform><numerusform>%n archivo(s) eliminados</numerusform></translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>Salir</translation>
    </message>
</context>
</TS>
